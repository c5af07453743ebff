import type { AppServer } from '../../src/realtime/io';
import { rooms } from '../../src/realtime/types';
import { prisma } from '../helpers/db';
import { createEvent, createUser, joinEvent } from '../helpers/factories';
import { useTestServer } from '../helpers/server';
import { connectSocket, emitAck, nextEvent, type ClientSocket } from '../helpers/socket';

describe('abuse limits of the real-time channel', () => {
  const server = useTestServer();
  const sockets: ClientSocket[] = [];
  afterAll(() => {
    for (const s of sockets) s.close();
  });

  it('500 join_event_room from one socket with 50 others in the room: joins are throttled (429) and the others get one delta each', async () => {
    const event = await createEvent({ withChatRoom: true });
    const others: ClientSocket[] = [];
    for (let i = 0; i < 50; i++) {
      const u = await createUser();
      await joinEvent(u.user, event);
      const s = await connectSocket(server.url, u.token);
      sockets.push(s);
      expect(await emitAck(s, 'join_event_room', event.slug)).toMatchObject({ success: true });
      others.push(s);
    }
    const abuser = await createUser();
    await joinEvent(abuser.user, event);
    const socket = await connectSocket(server.url, abuser.token);
    sockets.push(socket);

    let presenceDeliveries = 0;
    for (const s of others)
      s.onAny(
        (name: string) => (presenceDeliveries += ['active_users', 'user_joined', 'user_left'].includes(name) ? 1 : 0),
      );
    const acks = await Promise.all(Array.from({ length: 500 }, () => emitAck(socket, 'join_event_room', event.slug)));
    const refused = acks.filter((a) => !a.success);
    // a burst of 10, refilled at 1 a second: the run takes far less than 100 s
    expect(acks.length - refused.length).toBeGreaterThanOrEqual(1);
    expect(acks.length - refused.length).toBeLessThan(100);
    expect(refused[0]).toEqual({
      success: false,
      error: 'You are joining rooms too fast',
      code: 'ROOM_JOIN_THROTTLED',
    });

    // a message sent afterwards arrives after every delta the joins caused
    const delivered = others.map((s) => nextEvent(s, 'event_message', 10_000));
    await emitAck(others[0], 'send_event_message', { content: 'after the storm' });
    await Promise.all(delivered);
    expect(presenceDeliveries).toBe(50);
  });

  it('at most 20 sockets per user: more handshakes get connect_error "Too many connections for this user"', async () => {
    const user = await createUser();
    const attempts = await Promise.allSettled(Array.from({ length: 30 }, () => connectSocket(server.url, user.token)));
    const accepted = attempts.flatMap((a) => (a.status === 'fulfilled' ? [a.value] : []));
    sockets.push(...accepted);
    const refused = attempts.flatMap((a) => (a.status === 'rejected' ? [a.reason as Error & { data?: unknown }] : []));
    expect(accepted).toHaveLength(20);
    expect(refused).toHaveLength(10);
    expect(refused[0].message).toBe('Too many connections for this user');
    expect(refused[0].data).toEqual({ code: 'TOO_MANY_CONNECTIONS' });

    // a closed socket frees its place
    const gone = socketsLeft(server.container.notifier.server!, user.user.id, 19);
    accepted[0].close();
    await gone;
    sockets.push(await connectSocket(server.url, user.token));
    // another user is not affected
    sockets.push(await connectSocket(server.url, (await createUser()).token));
    expect(await prisma.user.count({ where: { id: user.user.id } })).toBe(1);
  });
});

/** Resolves once the user has at most `count` sockets on the server (polled on the event loop, no timer). */
function socketsLeft(io: AppServer, userId: number, count: number): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      if ((io.of('/').adapter.rooms.get(rooms.user(userId))?.size ?? 0) <= count) resolve();
      else setImmediate(check);
    };
    check();
  });
}

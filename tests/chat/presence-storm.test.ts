import type { ChatMessagePayload } from '../../src/realtime/types';
import { createEvent, createUser, joinEvent, type TestUser } from '../helpers/factories';
import { useTestServer } from '../helpers/server';
import { connectSocket, emitAck, nextEvent, type ClientSocket } from '../helpers/socket';

const N = 200;

/** Bytes and frames a client received, counted per engine.io packet (what travels on the wire). */
interface Received {
  bytes: number;
  presenceFrames: Record<'active_users' | 'user_joined' | 'user_left', number>;
  disconnected: boolean;
}

function meter(socket: ClientSocket): Received {
  const received: Received = {
    bytes: 0,
    presenceFrames: { active_users: 0, user_joined: 0, user_left: 0 },
    disconnected: false,
  };
  socket.io.engine.on('packet', (packet: { data?: unknown }) => {
    const data = packet.data;
    if (typeof data === 'string') received.bytes += Buffer.byteLength(data);
    else if (data instanceof ArrayBuffer || ArrayBuffer.isView(data)) received.bytes += data.byteLength;
  });
  socket.onAny((event: string) => {
    if (event in received.presenceFrames) received.presenceFrames[event as keyof Received['presenceFrames']]++;
  });
  socket.on('disconnect', () => (received.disconnected = true));
  return received;
}

describe(`presence storm: ${N} sockets joining one event room one by one`, () => {
  const server = useTestServer();
  const sockets: ClientSocket[] = [];
  afterAll(() => {
    for (const s of sockets) s.close();
  });

  it('each member receives linearly many presence bytes, every socket stays connected and receives the next message', async () => {
    const event = await createEvent({ withChatRoom: true });
    const users: TestUser[] = [];
    for (let i = 0; i < N; i++) {
      const u = await createUser();
      await joinEvent(u.user, event);
      users.push(u);
    }
    for (const u of users) sockets.push(await connectSocket(server.url, u.token));
    const meters = sockets.map(meter);
    const observer = sockets[0];

    // bytes the first member has received after join k (k = 1 … N), sampled once it saw user_joined k
    const observed: number[] = [];
    expect(await emitAck(observer, 'join_event_room', event.slug)).toMatchObject({ success: true });
    observed.push(meters[0].bytes);
    for (let k = 1; k < N; k++) {
      const announced = nextEvent<{ userId: number }>(observer, 'user_joined');
      expect(await emitAck(sockets[k], 'join_event_room', event.slug)).toMatchObject({ success: true });
      expect((await announced).userId).toBe(users[k].user.id);
      observed.push(meters[0].bytes);
    }

    // linear: the second half of the joins costs the first member about what the first half did
    const half = Math.floor(N / 2);
    const firstHalf = observed[half] - observed[0];
    const secondHalf = observed[N - 1] - observed[half];
    expect(secondHalf).toBeLessThanOrEqual(firstHalf * 1.25);
    expect(observed[N - 1] / (N - 1)).toBeLessThan(300); // bytes per join, one small delta each

    expect(sockets.every((s) => s.connected)).toBe(true);
    expect(meters.some((m) => m.disconnected)).toBe(false);

    const deliveries = sockets.map((s) => nextEvent<ChatMessagePayload>(s, 'event_message', 15_000));
    expect(await emitAck(sockets[N - 1], 'send_event_message', { content: 'everyone?' })).toMatchObject({
      success: true,
    });
    const messages = await Promise.all(deliveries);
    expect(messages.filter((m) => m.content === 'everyone?')).toHaveLength(N);

    // per member (frames arrive in emission order, so all deltas came before the message): one
    // list when it joined and one delta per later joiner, nothing else
    meters.forEach((m, k) => {
      expect(m.presenceFrames).toEqual({ active_users: 1, user_joined: N - 1 - k, user_left: 0 });
    });
  });
});

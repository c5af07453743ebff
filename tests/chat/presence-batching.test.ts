import { prisma } from '../helpers/db';
import { createEvent } from '../helpers/factories';
import { participants, roster, until } from '../helpers/presence';
import { useTestServer } from '../helpers/server';
import { emitAck, useSocketClients } from '../helpers/socket';

/**
 * Joins that arrive together (a reconnect storm) share their reads and their presence sends
 * (src/modules/chat/event-room.service.ts openRoom, src/modules/chat/chat.presence.ts outbox);
 * what every member learns stays exact.
 */
describe('event room joins arriving together', () => {
  const server = useTestServer();
  const connect = useSocketClients(() => server.url);

  it('forty sockets joining at once each end up knowing all forty members, with fewer statements than joins', async () => {
    const event = await createEvent({ withChatRoom: true });
    const users = await participants(40, event);
    const sockets = await Promise.all(users.map((u) => connect(u)));
    const rosters = sockets.map(roster);
    const before = server.container.database.poolStats().queries;
    const acks = await Promise.all(sockets.map((s) => emitAck(s, 'join_event_room', event.slug)));
    const statements = server.container.database.poolStats().queries - before;
    expect(acks.every((a) => a.success)).toBe(true);
    expect(statements).toBeLessThan(users.length);
    const everyone = users.map((u) => u.user.id).sort((a, b) => a - b);
    expect(await until(() => rosters.every((r) => r.size === everyone.length))).toBe(true);
    for (const r of rosters) expect([...r].sort((a, b) => a - b)).toEqual(everyone);
  });

  it('a user who joins and leaves right away is absent for the other members afterwards', async () => {
    const event = await createEvent({ withChatRoom: true });
    const [stay, passer] = await participants(2, event);
    const staying = await connect(stay);
    const seen = roster(staying);
    expect((await emitAck(staying, 'join_event_room', event.slug)).success).toBe(true);
    const passing = await connect(passer);
    expect((await emitAck(passing, 'join_event_room', event.slug)).success).toBe(true);
    expect((await emitAck(passing, 'leave_event_room')).success).toBe(true);
    // a marker after the leave: once it is seen, every earlier delta has arrived
    const marker = await participants(1, event);
    const markerSocket = await connect(marker[0]);
    expect((await emitAck(markerSocket, 'join_event_room', event.slug)).success).toBe(true);
    expect(await until(() => seen.has(marker[0].user.id))).toBe(true);
    expect(seen.has(passer.user.id)).toBe(false);
    expect([...seen].sort()).toEqual([stay.user.id, marker[0].user.id].sort());
  });

  it('among joins at once, a caller whose participation ended just before is refused and the others get the history', async () => {
    const event = await createEvent({ withChatRoom: true });
    const users = await participants(12, event);
    const room = await prisma.chatRoom.findFirstOrThrow({ where: { eventId: event.id, type: 'event' } });
    await prisma.message.create({
      data: { roomId: room.id, userId: users[1].user.id, content: 'see you on the floor' },
    });
    const sockets = await Promise.all(users.map((u) => connect(u)));
    await prisma.eventParticipant.delete({
      where: { userId_eventId: { userId: users[0].user.id, eventId: event.id } },
    });
    const acks = await Promise.all(sockets.map((s) => emitAck(s, 'join_event_room', event.slug)));
    expect(acks[0]).toMatchObject({ success: false, code: 'NOT_PARTICIPANT' });
    expect(acks.slice(1).every((a) => a.success)).toBe(true);
  });

  it('every joiner of a batch receives the room history, oldest first', async () => {
    const event = await createEvent({ withChatRoom: true });
    const users = await participants(10, event);
    const room = await prisma.chatRoom.findFirstOrThrow({ where: { eventId: event.id, type: 'event' } });
    for (const content of ['first', 'second'])
      await prisma.message.create({ data: { roomId: room.id, userId: users[0].user.id, content } });
    const sockets = await Promise.all(users.map((u) => connect(u)));
    const histories = sockets.map(
      (s) => new Promise<{ content: string }[]>((resolve) => s.once('message_history', resolve)),
    );
    await Promise.all(sockets.map((s) => emitAck(s, 'join_event_room', event.slug)));
    for (const h of await Promise.all(histories)) expect(h.map((m) => m.content)).toEqual(['first', 'second']);
  });
});

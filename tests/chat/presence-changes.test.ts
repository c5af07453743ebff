import { createEvent, createUser } from '../helpers/factories';
import { participants, roster, until } from '../helpers/presence';
import { useTestServer } from '../helpers/server';
import { connectSocket, emitAck, useSocketClients, type ClientSocket } from '../helpers/socket';

interface Change {
  event: 'user_joined' | 'user_left';
  data: { userId: number };
}

/** What a socket is told of presence: the single events and the batched ones, as they arrive. */
function heard(socket: ClientSocket) {
  const single: { event: string; userId: number }[] = [];
  const batches: Change[][] = [];
  socket.on('user_joined', (u: { userId: number }) => single.push({ event: 'user_joined', userId: u.userId }));
  socket.on('user_left', (u: { userId: number }) => single.push({ event: 'user_left', userId: u.userId }));
  socket.on('presence_changes', (p: { changes: Change[] }) => batches.push(p.changes));
  return {
    single,
    batches,
    /** the batched changes in order, as `event userId` */
    changes: () => batches.flat().map((c) => `${c.event} ${c.data.userId}`),
  };
}

/**
 * `auth: { presence: 'batched' }` (src/realtime/io.ts, src/modules/chat/chat.presence.ts): the
 * socket hears of presence changes in `presence_changes`, several per event, instead of one
 * `user_joined`/`user_left` each; sockets without it are told as before.
 */
describe('batched presence', () => {
  const server = useTestServer();
  const connect = useSocketClients(() => server.url);

  it('a batched member hears of five joins in presence_changes and never in user_joined', async () => {
    const event = await createEvent({ withChatRoom: true });
    const [member, ...others] = await participants(6, event);
    const socket = await connect(member, { presence: 'batched' });
    const told = heard(socket);
    expect((await emitAck(socket, 'join_event_room', event.slug)).success).toBe(true);
    const sockets = await Promise.all(others.map((u) => connect(u)));
    await Promise.all(sockets.map((s) => emitAck(s, 'join_event_room', event.slug)));
    expect(await until(() => told.changes().length === others.length)).toBe(true);
    expect(told.changes().sort()).toEqual(others.map((u) => `user_joined ${u.user.id}`).sort());
    expect(told.single).toEqual([]);
    // joins that arrive together share an event (one outbox)
    expect(told.batches.length).toBeLessThan(others.length);
  });

  it('a member without the option beside it still gets one user_joined per joiner', async () => {
    const event = await createEvent({ withChatRoom: true });
    const [plain, batched, ...others] = await participants(5, event);
    const plainSocket = await connect(plain);
    const batchedSocket = await connect(batched, { presence: 'batched' });
    const toPlain = heard(plainSocket);
    expect((await emitAck(plainSocket, 'join_event_room', event.slug)).success).toBe(true);
    expect((await emitAck(batchedSocket, 'join_event_room', event.slug)).success).toBe(true);
    await Promise.all(
      (await Promise.all(others.map((u) => connect(u)))).map((s) => emitAck(s, 'join_event_room', event.slug)),
    );
    const expected = [batched, ...others].map((u) => `user_joined ${u.user.id}`).sort();
    expect(await until(() => toPlain.single.length === expected.length)).toBe(true);
    expect(toPlain.single.map((c) => `${c.event} ${c.userId}`).sort()).toEqual(expected);
    expect(toPlain.batches).toEqual([]);
  });

  it("the explicit default 'deltas' is the single events", async () => {
    const event = await createEvent({ withChatRoom: true });
    const [member, joiner] = await participants(2, event);
    const socket = await connect(member, { presence: 'deltas' });
    const told = heard(socket);
    expect((await emitAck(socket, 'join_event_room', event.slug)).success).toBe(true);
    const other = await connect(joiner, { presence: 'batched' });
    expect((await emitAck(other, 'join_event_room', event.slug)).success).toBe(true);
    expect(await until(() => told.single.length === 1)).toBe(true);
    expect(told.single).toEqual([{ event: 'user_joined', userId: joiner.user.id }]);
    expect(told.batches).toEqual([]);
  });

  it('a join then a leave arrive in that order, and the batched roster ends without the passer', async () => {
    const event = await createEvent({ withChatRoom: true });
    const [stay, passer, marker] = await participants(3, event);
    const socket = await connect(stay, { presence: 'batched' });
    const told = heard(socket);
    const members = roster(socket);
    expect((await emitAck(socket, 'join_event_room', event.slug)).success).toBe(true);
    const passing = await connect(passer);
    expect((await emitAck(passing, 'join_event_room', event.slug)).success).toBe(true);
    expect((await emitAck(passing, 'leave_event_room')).success).toBe(true);
    const markerSocket = await connect(marker);
    expect((await emitAck(markerSocket, 'join_event_room', event.slug)).success).toBe(true);
    expect(await until(() => members.has(marker.user.id))).toBe(true);
    expect(told.changes()).toEqual([
      `user_joined ${passer.user.id}`,
      `user_left ${passer.user.id}`,
      `user_joined ${marker.user.id}`,
    ]);
    expect([...members].sort()).toEqual([stay.user.id, marker.user.id].sort());
  });

  it('a disconnect reaches batched members as a user_left change', async () => {
    const event = await createEvent({ withChatRoom: true });
    const [stay, leaver] = await participants(2, event);
    const socket = await connect(stay, { presence: 'batched' });
    const told = heard(socket);
    expect((await emitAck(socket, 'join_event_room', event.slug)).success).toBe(true);
    const leaving = await connect(leaver, { presence: 'batched' });
    expect((await emitAck(leaving, 'join_event_room', event.slug)).success).toBe(true);
    leaving.disconnect();
    expect(await until(() => told.changes().length === 2)).toBe(true);
    expect(told.changes()).toEqual([`user_joined ${leaver.user.id}`, `user_left ${leaver.user.id}`]);
  });

  it('thirty batched sockets joining at once each end up knowing all thirty members', async () => {
    const event = await createEvent({ withChatRoom: true });
    const users = await participants(30, event);
    const sockets = await Promise.all(users.map((u) => connect(u, { presence: 'batched' })));
    const rosters = sockets.map(roster);
    const acks = await Promise.all(sockets.map((s) => emitAck(s, 'join_event_room', event.slug)));
    expect(acks.every((a) => a.success)).toBe(true);
    const everyone = users.map((u) => u.user.id).sort((a, b) => a - b);
    expect(await until(() => rosters.every((r) => r.size === everyone.length))).toBe(true);
    for (const r of rosters) expect([...r].sort((a, b) => a - b)).toEqual(everyone);
  });

  it('a handshake with an unknown presence mode is refused with VALIDATION_ERROR', async () => {
    const { token } = await createUser();
    const refused = connectSocket(server.url, token, { auth: { presence: 'sometimes' } });
    await expect(refused).rejects.toMatchObject({
      message: "auth.presence must be 'deltas', 'batched' or 'count'",
      data: { code: 'VALIDATION_ERROR' },
    });
  });
});

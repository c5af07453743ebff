import { createEvent } from '../helpers/factories';
import { participants, roster, until } from '../helpers/presence';
import { useTestServer } from '../helpers/server';
import { emitAck, nextEvent, receivesWithin, useSocketClients, type ClientSocket } from '../helpers/socket';

/** Every `presence_count` a socket receives, in order, and whether it heard anything of the list or the changes. */
function counts(socket: ClientSocket) {
  const heard = { counts: [] as number[], lists: 0, changes: 0 };
  socket.on('presence_count', ({ count }: { count: number }) => heard.counts.push(count));
  socket.on('active_users', () => heard.lists++);
  socket.on('user_joined', () => heard.changes++);
  socket.on('user_left', () => heard.changes++);
  socket.on('presence_changes', () => heard.changes++);
  return heard;
}

interface Page {
  users: { userId: number; username: string; avatar: string }[];
  count: number;
  nextAfter: number | null;
}

/** The page of a successful list_active_users ack (fails the test on a refusal). */
async function listPage(socket: ClientSocket, payload?: { after?: number; limit?: number }): Promise<Page> {
  const ack = await emitAck<Page>(socket, 'list_active_users', ...(payload ? [payload] : []));
  if (!ack.success) throw new Error(`list_active_users refused: ${ack.code}`);
  return ack.data as Page;
}

/**
 * `auth: { presence: 'count' }` (src/realtime/io.ts, src/modules/chat/chat.presence.ts): the
 * socket hears the room's head count (`presence_count`) instead of the member list and the
 * changes, and pages through the list with `list_active_users` (docs/realtime.md).
 */
describe('counted presence', () => {
  const server = useTestServer();
  const connect = useSocketClients(() => server.url);

  it('a counting socket gets the room count on join and no member list', async () => {
    const event = await createEvent({ withChatRoom: true });
    const [first, second, counting] = await participants(3, event);
    for (const u of [first, second]) {
      const s = await connect(u);
      expect((await emitAck(s, 'join_event_room', event.slug)).success).toBe(true);
    }
    const socket = await connect(counting, { presence: 'count' });
    const heard = counts(socket);
    const count = nextEvent<{ count: number }>(socket, 'presence_count');
    expect((await emitAck(socket, 'join_event_room', event.slug)).success).toBe(true);
    expect(await count).toEqual({ count: 3 });
    expect(await receivesWithin(socket, 'active_users', 300)).toBe(false);
    expect(heard.lists).toBe(0);
  });

  it('a user with two sockets in the room counts once', async () => {
    const event = await createEvent({ withChatRoom: true });
    const [twice, counting] = await participants(2, event);
    for (const s of [await connect(twice), await connect(twice)])
      expect((await emitAck(s, 'join_event_room', event.slug)).success).toBe(true);
    const socket = await connect(counting, { presence: 'count' });
    const count = nextEvent<{ count: number }>(socket, 'presence_count');
    expect((await emitAck(socket, 'join_event_room', event.slug)).success).toBe(true);
    expect(await count).toEqual({ count: 2 });
  });

  it('a counting member hears five joins as at most two new counts, ending at six, and no changes', async () => {
    const event = await createEvent({ withChatRoom: true });
    const [member, ...others] = await participants(6, event);
    const socket = await connect(member, { presence: 'count' });
    const heard = counts(socket);
    expect((await emitAck(socket, 'join_event_room', event.slug)).success).toBe(true);
    expect(await until(() => heard.counts.length === 1)).toBe(true);
    const sockets = await Promise.all(others.map((u) => connect(u, { presence: 'count' })));
    await Promise.all(sockets.map((s) => emitAck(s, 'join_event_room', event.slug)));
    expect(await until(() => heard.counts[heard.counts.length - 1] === 6, 5000)).toBe(true);
    // the first change goes out at once, the rest within a second of it
    expect(heard.counts.length).toBeLessThanOrEqual(3);
    expect(heard.counts[0]).toBe(1);
    expect(heard.changes + heard.lists).toBe(0);
  });

  it('a counting member hears the count go down when a member disconnects', async () => {
    const event = await createEvent({ withChatRoom: true });
    const [stay, leaver] = await participants(2, event);
    const leaving = await connect(leaver);
    expect((await emitAck(leaving, 'join_event_room', event.slug)).success).toBe(true);
    const socket = await connect(stay, { presence: 'count' });
    const heard = counts(socket);
    expect((await emitAck(socket, 'join_event_room', event.slug)).success).toBe(true);
    expect(await until(() => heard.counts.length === 1)).toBe(true);
    expect(heard.counts).toEqual([2]);
    leaving.disconnect();
    expect(await until(() => heard.counts[heard.counts.length - 1] === 1, 5000)).toBe(true);
  });

  it('members of the other modes beside counting sockets still get their list and changes', async () => {
    const event = await createEvent({ withChatRoom: true });
    const [plain, counting, joiner] = await participants(3, event);
    const plainSocket = await connect(plain);
    const members = roster(plainSocket);
    expect((await emitAck(plainSocket, 'join_event_room', event.slug)).success).toBe(true);
    const countingSocket = await connect(counting, { presence: 'count' });
    expect((await emitAck(countingSocket, 'join_event_room', event.slug)).success).toBe(true);
    const joining = await connect(joiner, { presence: 'count' });
    expect((await emitAck(joining, 'join_event_room', event.slug)).success).toBe(true);
    expect(await until(() => members.size === 3)).toBe(true);
    expect([...members].sort()).toEqual([plain, counting, joiner].map((u) => u.user.id).sort());
  });

  it('list_active_users pages through the room by ascending id', async () => {
    const event = await createEvent({ withChatRoom: true });
    const users = await participants(5, event);
    const sockets = await Promise.all(users.map((u) => connect(u, { presence: 'count' })));
    for (const s of sockets) expect((await emitAck(s, 'join_event_room', event.slug)).success).toBe(true);
    const ids = users.map((u) => u.user.id).sort((a, b) => a - b);
    const first = await listPage(sockets[0], { limit: 2 });
    expect(first).toEqual({
      users: ids.slice(0, 2).map((userId) => expect.objectContaining({ userId })),
      count: 5,
      nextAfter: ids[1],
    });
    const seen: number[] = [];
    let after: number | null = 0;
    while (after !== null) {
      const page: Page = await listPage(sockets[0], { after, limit: 2 });
      seen.push(...page.users.map((u) => u.userId));
      after = page.nextAfter;
    }
    expect(seen).toEqual(ids);
    const one = users.find((u) => u.user.id === ids[0])!;
    expect(first.users[0]).toEqual({
      userId: one.user.id,
      username: one.user.username,
      avatar: expect.any(String),
    });
  });

  it('list_active_users without a payload is the first page of up to 100', async () => {
    const event = await createEvent({ withChatRoom: true });
    const [only] = await participants(1, event);
    const socket = await connect(only);
    expect((await emitAck(socket, 'join_event_room', event.slug)).success).toBe(true);
    const page = await emitAck<Page>(socket, 'list_active_users');
    expect(page).toEqual({
      success: true,
      data: { users: [expect.objectContaining({ userId: only.user.id })], count: 1, nextAfter: null },
    });
  });

  it('list_active_users before joining a room is refused with NOT_IN_ROOM', async () => {
    const event = await createEvent({ withChatRoom: true });
    const [outsider] = await participants(1, event);
    const socket = await connect(outsider, { presence: 'count' });
    expect(await emitAck(socket, 'list_active_users', {})).toEqual({
      success: false,
      error: 'Join an event room first',
      code: 'NOT_IN_ROOM',
    });
  });

  it('list_active_users with a limit above 100 is refused with VALIDATION_ERROR', async () => {
    const event = await createEvent({ withChatRoom: true });
    const [member] = await participants(1, event);
    const socket = await connect(member);
    expect((await emitAck(socket, 'join_event_room', event.slug)).success).toBe(true);
    expect(await emitAck(socket, 'list_active_users', { limit: 101 })).toEqual({
      success: false,
      error: 'limit must be an integer from 1 to 100',
      code: 'VALIDATION_ERROR',
    });
  });

  it('list_active_users beyond 60 pages at once is refused with RATE_LIMITED', async () => {
    const event = await createEvent({ withChatRoom: true });
    const [member] = await participants(1, event);
    const socket = await connect(member);
    expect((await emitAck(socket, 'join_event_room', event.slug)).success).toBe(true);
    const answers = await Promise.all(Array.from({ length: 61 }, () => emitAck(socket, 'list_active_users')));
    expect(answers.filter((a) => a.success)).toHaveLength(60);
    expect(answers[60]).toMatchObject({ success: false, code: 'RATE_LIMITED' });
  });
});

describe('counted presence in a room that grows', () => {
  // 400 ms per socket: a room of 5 sockets hears its count at most every 2 s, as a room of 2 000
  // sockets does with the default 1 ms (config.realtime.presenceCount)
  const server = useTestServer({ realtime: { presenceCount: { intervalMs: 1000, msPerSocket: 400 } } });
  const connect = useSocketClients(() => server.url);

  it('a count that falls due waits for the interval of the room as it is then, not as it was when the change came', async () => {
    const event = await createEvent({ withChatRoom: true });
    const [member, ...others] = await participants(5, event);
    const socket = await connect(member, { presence: 'count' });
    const heard = counts(socket);
    const at: number[] = [];
    socket.on('presence_count', () => at.push(Date.now()));
    const joiners = await Promise.all(others.map((u) => connect(u, { presence: 'count' })));
    // a room of 1: its count at once; the next count is due a second later for a room of 2, and
    // the room has 5 sockets (an interval of 2 s) before that second is over
    expect((await emitAck(socket, 'join_event_room', event.slug)).success).toBe(true);
    expect((await emitAck(joiners[0], 'join_event_room', event.slug)).success).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await Promise.all(joiners.slice(1).map((s) => emitAck(s, 'join_event_room', event.slug)));
    expect(await until(() => heard.counts[heard.counts.length - 1] === 5, 5000)).toBe(true);
    expect(heard.counts).toEqual([1, 5]);
    expect(at[1] - at[0]).toBeGreaterThanOrEqual(1900);
  });
});

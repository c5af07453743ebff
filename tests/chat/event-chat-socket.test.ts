import { prisma } from '../helpers/db';
import type { ChatMessagePayload } from '../../src/realtime/types';
import { createEvent, createUser, joinEvent, type TestUser } from '../helpers/factories';
import { useTestServer } from '../helpers/server';
import { emitAck, nextEvent, receivesWithin, useSocketClients } from '../helpers/socket';

type ActiveUser = { userId: number; username: string; avatar: string };

describe('event chat over Socket.IO', () => {
  const server = useTestServer();
  const connect = useSocketClients(() => server.url);
  /** A participant of `event` with a socket that joined the event room. */
  const joined = async (event: { id: number; slug: string }, user?: TestUser) => {
    const u = user ?? (await createUser());
    if (
      !(await prisma.eventParticipant.findUnique({
        where: { userId_eventId: { userId: u.user.id, eventId: event.id } },
      }))
    ) {
      await joinEvent(u.user, event);
    }
    const socket = await connect(u);
    const ack = await emitAck(socket, 'join_event_room', event.slug);
    expect(ack).toMatchObject({ success: true });
    return { user: u, socket };
  };

  it('join_event_room: 404 unknown event, 403 non-participant (ack and error_message)', async () => {
    const event = await createEvent();
    const stranger = await createUser();
    const socket = await connect(stranger);
    expect(await emitAck(socket, 'join_event_room', 'NoSuchEvent33')).toEqual({
      success: false,
      error: 'Event not found',
      code: 'EVENT_NOT_FOUND',
    });
    expect(await emitAck(socket, 'join_event_room', event.slug)).toEqual({
      success: false,
      error: 'You must be a participant of this event',
      code: 'NOT_PARTICIPANT',
    });
    const pushed = nextEvent<{ error: string }>(socket, 'error_message');
    socket.emit('join_event_room', event.slug);
    await expect(pushed).resolves.toEqual({ error: 'You must be a participant of this event' });
    expect(await emitAck(socket, 'join_event_room', { not: 'a slug' })).toEqual({
      success: false,
      error: 'Event not found',
      code: 'EVENT_NOT_FOUND',
    });
  });

  it('join sends the last 20 messages oldest first and active_users to the joining socket, creating a missing room', async () => {
    const event = await createEvent();
    const alice = await createUser();
    await joinEvent(alice.user, event);
    const aliceSocket = await connect(alice);
    const history = nextEvent<ChatMessagePayload[]>(aliceSocket, 'message_history');
    const presence = nextEvent<ActiveUser[]>(aliceSocket, 'active_users');
    expect(await emitAck(aliceSocket, 'join_event_room', event.slug)).toMatchObject({ success: true });
    expect(await history).toEqual([]);
    expect(await presence).toEqual([
      { userId: alice.user.id, username: alice.user.username, avatar: alice.user.avatar },
    ]);
    const room = await prisma.chatRoom.findUniqueOrThrow({
      where: { eventId_type: { eventId: event.id, type: 'event' } },
    });

    await prisma.message.createMany({
      data: Array.from({ length: 25 }, (_, i) => ({ roomId: room.id, userId: alice.user.id, content: `m${i + 1}` })),
    });
    const bob = await createUser();
    await joinEvent(bob.user, event);
    const bobSocket = await connect(bob);
    const bobHistory = nextEvent<ChatMessagePayload[]>(bobSocket, 'message_history');
    const bobList = nextEvent<ActiveUser[]>(bobSocket, 'active_users');
    await emitAck(bobSocket, 'join_event_room', event.slug);
    expect((await bobHistory).map((m) => m.content)).toEqual(Array.from({ length: 20 }, (_, i) => `m${i + 6}`));
    expect((await bobList).map((u) => u.userId).sort()).toEqual([alice.user.id, bob.user.id].sort());
  });

  it("presence: the room gets user_joined for a user's first socket and user_left for the last one, never the list", async () => {
    const event = await createEvent();
    const { socket: alice } = await joined(event);
    const seen: [string, unknown][] = [];
    alice.onAny((name: string, payload: unknown) => {
      if (['active_users', 'user_joined', 'user_left'].includes(name)) seen.push([name, payload]);
    });
    const bob = await createUser();
    await joinEvent(bob.user, event);
    const bobJoined = nextEvent(alice, 'user_joined');
    const bob1 = await connect(bob);
    await emitAck(bob1, 'join_event_room', event.slug);
    expect(await bobJoined).toEqual({ userId: bob.user.id, username: bob.user.username, avatar: bob.user.avatar });

    // a second socket of bob: no delta when it joins or when one of the two goes
    const bob2 = await connect(bob);
    await emitAck(bob2, 'join_event_room', event.slug);
    bob2.close();
    const bobLeft = nextEvent(alice, 'user_left');
    await emitAck(bob1, 'leave_event_room');
    expect(await bobLeft).toEqual({ userId: bob.user.id });

    // disconnecting the only socket in the room is a leave too
    const bob3 = await connect(bob);
    await emitAck(bob3, 'join_event_room', event.slug);
    const bob3Left = nextEvent(alice, 'user_left');
    bob3.close();
    expect(await bob3Left).toEqual({ userId: bob.user.id });
    expect(seen).toEqual([
      ['user_joined', { userId: bob.user.id, username: bob.user.username, avatar: bob.user.avatar }],
      ['user_left', { userId: bob.user.id }],
      ['user_joined', { userId: bob.user.id, username: bob.user.username, avatar: bob.user.avatar }],
      ['user_left', { userId: bob.user.id }],
    ]);
  });

  it('presence: leaving the event over HTTP sends one user_left to the room', async () => {
    const event = await createEvent({ withChatRoom: true });
    const { user, socket } = await joined(event);
    const second = await connect(user);
    await emitAck(second, 'join_event_room', event.slug);
    const { socket: watcher } = await joined(event);
    const left = nextEvent(watcher, 'user_left');
    await server.request.delete(`/api/events/${event.slug}/leave`).set('Authorization', user.auth).expect(200);
    expect(await left).toEqual({ userId: user.user.id });
    // the user's sockets are out of the room: disconnecting them announces nothing more
    const again = receivesWithin(watcher, 'user_left', 400);
    socket.close();
    second.close();
    expect(await again).toBe(false);
  });

  it('send_event_message stores the content exactly and broadcasts it to the room only', async () => {
    const event = await createEvent({ withChatRoom: true });
    const other = await createEvent({ withChatRoom: true });
    const { user: alice, socket: a } = await joined(event);
    const { socket: b } = await joined(event);
    const { socket: elsewhere } = await joined(other);
    const outsider = await connect(await createUser());

    const content = '<script>alert("pwned")</script> & <img src=x onerror=1>  ';
    const toB = nextEvent<ChatMessagePayload>(b, 'event_message');
    const toA = nextEvent<ChatMessagePayload>(a, 'event_message');
    const notElsewhere = receivesWithin(elsewhere, 'event_message', 400);
    const notOutsider = receivesWithin(outsider, 'event_message', 400);
    const ack = await emitAck<ChatMessagePayload>(a, 'send_event_message', { content });
    expect(ack.success).toBe(true);
    const received = await toB;
    expect(received).toEqual({
      id: expect.any(Number),
      roomId: expect.any(Number),
      userId: alice.user.id,
      username: alice.user.username,
      avatar: alice.user.avatar,
      content,
      type: 'text',
      createdAt: expect.any(String),
    });
    expect((await toA).id).toBe(received.id);
    expect(await notElsewhere).toBe(false);
    expect(await notOutsider).toBe(false);
    const stored = await prisma.message.findUniqueOrThrow({ where: { id: received.id } });
    expect(stored.content).toBe(content);
  });

  it('refuses sending before joining a room, empty or too long content, and non-object payloads', async () => {
    const event = await createEvent({ withChatRoom: true });
    const user = await createUser();
    await joinEvent(user.user, event);
    const socket = await connect(user);
    const notJoined = await emitAck(socket, 'send_event_message', { content: 'hi' });
    expect(notJoined).toEqual({ success: false, error: 'Join an event room first', code: 'NOT_IN_ROOM' });
    await emitAck(socket, 'join_event_room', event.slug);
    for (const payload of [{ content: '   ' }, { content: 'x'.repeat(2001) }, { content: 5 }, null, 'text']) {
      const res = await emitAck(socket, 'send_event_message', payload);
      expect(res.success).toBe(false);
    }
    expect((await emitAck(socket, 'send_event_message', { content: 'y'.repeat(2000) })).success).toBe(true);
    expect(await prisma.message.count({ where: { userId: user.user.id } })).toBe(1);
  });

  it('requires a verified e-mail to send', async () => {
    const event = await createEvent({ withChatRoom: true });
    const unverified = await createUser({ emailVerified: false });
    const { socket } = await joined(event, unverified);
    expect(await emitAck(socket, 'send_event_message', { content: 'hello' })).toEqual({
      success: false,
      error: 'Email verification required',
      code: 'EMAIL_NOT_VERIFIED',
    });
    expect(await prisma.message.count({ where: { userId: unverified.user.id } })).toBe(0);
  });

  it('a user who left the event cannot post any more and leaves the socket room', async () => {
    const event = await createEvent({ withChatRoom: true });
    const { user, socket } = await joined(event);
    const { socket: watcher } = await joined(event);
    const res = await server.request.delete(`/api/events/${event.slug}/leave`).set('Authorization', user.auth);
    expect(res.status).toBe(200);
    const watcherGets = receivesWithin(watcher, 'event_message', 400);
    expect(await emitAck(socket, 'send_event_message', { content: 'still here?' })).toEqual({
      success: false,
      error: 'You must be a participant of this event',
      code: 'NOT_PARTICIPANT',
    });
    expect(await watcherGets).toBe(false);
  });

  it('leave_event_room stops delivery; joining another event leaves the previous room', async () => {
    const first = await createEvent({ withChatRoom: true });
    const second = await createEvent({ withChatRoom: true });
    const { user, socket } = await joined(first);
    await joinEvent(user.user, second);
    const { socket: sender } = await joined(first);

    await emitAck(socket, 'join_event_room', second.slug);
    let gets = receivesWithin(socket, 'event_message', 400);
    await emitAck(sender, 'send_event_message', { content: 'to first' });
    expect(await gets).toBe(false);

    await emitAck(socket, 'join_event_room', first.slug);
    expect(await emitAck(socket, 'leave_event_room')).toEqual({ success: true });
    gets = receivesWithin(socket, 'event_message', 400);
    await emitAck(sender, 'send_event_message', { content: 'to first again' });
    expect(await gets).toBe(false);
    expect(await emitAck(socket, 'send_event_message', { content: 'x' })).toEqual({
      success: false,
      error: 'Join an event room first',
      code: 'NOT_IN_ROOM',
    });
  });

  it('limits floods: a burst of 10 passes, then "You are sending messages too fast", logged once', async () => {
    const event = await createEvent({ withChatRoom: true });
    const { user, socket } = await joined(event);
    // all 14 at once: the limiter decides synchronously on arrival, so refill during the test is negligible
    const results = await Promise.all(
      Array.from({ length: 14 }, (_, i) => emitAck(socket, 'send_event_message', { content: `flood ${i}` })),
    );
    const refused = results.filter((r) => !r.success);
    expect(refused.length).toBeGreaterThanOrEqual(3);
    expect(refused[0]).toEqual({ success: false, error: 'You are sending messages too fast', code: 'CHAT_FLOOD' });
    expect(await prisma.message.count({ where: { userId: user.user.id } })).toBe(14 - refused.length);
    const logs = await prisma.activityLog.findMany({ where: { userId: user.user.id, action: 'chat_flood_limited' } });
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({ category: 'chat', success: false });
    // ordinary messages are not logged
    expect(await prisma.activityLog.count({ where: { userId: user.user.id, category: 'chat', success: true } })).toBe(
      0,
    );
  });
});

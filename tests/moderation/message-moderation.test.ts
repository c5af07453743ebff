import { prisma } from '../helpers/db';
import { createAdmin, createUser, ensureEventRoom, type TestUser } from '../helpers/factories';
import { createTrio, insertMatch } from '../helpers/matches';
import { useTestServer } from '../helpers/server';
import { emitAck, nextEvent, receivesWithin, useSocketClients } from '../helpers/socket';

describe('message removal by an admin', () => {
  const server = useTestServer();
  const connect = useSocketClients(() => server.url);
  let admin: TestUser;
  beforeAll(async () => {
    admin = await createAdmin();
  });
  const remove = (id: number | string, as: TestUser = admin) =>
    server.request.delete(`/api/admin/messages/${id}`).set('Authorization', as.auth);

  it('removes an event message: 200, gone from both histories, message_deleted to the room, audited', async () => {
    const { event, alice, bob } = await createTrio();
    const room = await ensureEventRoom(event);
    const kept = await prisma.message.create({ data: { roomId: room.id, userId: alice.user.id, content: 'kept' } });
    const bad = await prisma.message.create({ data: { roomId: room.id, userId: bob.user.id, content: 'offensive' } });
    const a = await connect(alice);
    expect((await emitAck(a, 'join_event_room', event.slug)).success).toBe(true);
    const told = nextEvent<{ messageId: number }>(a, 'message_deleted');

    const res = await remove(bad.id).expect(200);
    expect(res.body).toEqual({ success: true, message: 'Message deleted' });
    expect(await told).toEqual({ messageId: bad.id });
    const history = await server.request
      .get(`/api/events/${event.slug}/messages`)
      .set('Authorization', alice.auth)
      .expect(200);
    expect(history.body.data.map((m: { id: number }) => m.id)).toEqual([kept.id]);
    const b = await connect(bob);
    const onJoin = nextEvent<{ id: number }[]>(b, 'message_history');
    await emitAck(b, 'join_event_room', event.slug);
    expect((await onJoin).map((m) => m.id)).toEqual([kept.id]);
    expect((await prisma.message.findUniqueOrThrow({ where: { id: bad.id } })).deletedAt).not.toBeNull();
    const audit = await prisma.activityLog.findFirst({
      where: { action: 'message_delete', resource: `message:${bad.id}` },
    });
    expect(audit).toMatchObject({
      category: 'admin',
      userId: admin.user.id,
      metadata: { roomId: room.id, authorId: bob.user.id },
    });
  });

  it('removes a private message: gone from GET /matches/:slug/messages and join_private_room, message_deleted to the match room only', async () => {
    const { event, alice, bob, carol } = await createTrio();
    const match = await insertMatch(event, alice.user, bob.user, 'accepted');
    const message = await prisma.message.create({
      data: { roomId: match.chatRoom!.id, userId: bob.user.id, content: 'private insult' },
    });
    const [a, c] = await Promise.all([connect(alice), connect(carol)]);
    expect((await emitAck(a, 'join_private_room', { matchId: match.id })).success).toBe(true);
    const told = nextEvent<{ messageId: number }>(a, 'message_deleted');
    const carolNotTold = receivesWithin(c, 'message_deleted', 600);
    await remove(message.id).expect(200);
    expect(await told).toEqual({ messageId: message.id });
    expect(await carolNotTold).toBe(false);
    const history = await server.request
      .get(`/api/matches/${match.slug}/messages`)
      .set('Authorization', alice.auth)
      .expect(200);
    expect(history.body.data).toEqual([]);
    const b = await connect(bob);
    const joined = await emitAck<{ messages: unknown[] }>(b, 'join_private_room', { matchId: match.id });
    expect(joined).toMatchObject({ success: true, data: { messages: [] } });
  });

  it('answers 404 MESSAGE_NOT_FOUND for an unknown, malformed or already deleted id', async () => {
    const { event, alice } = await createTrio();
    const room = await ensureEventRoom(event);
    const message = await prisma.message.create({ data: { roomId: room.id, userId: alice.user.id, content: 'once' } });
    await remove(message.id).expect(200);
    for (const id of [message.id, 2147483647, 'abc', '-1', '99999999999']) {
      const res = await remove(id);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ success: false, error: 'Message not found', code: 'MESSAGE_NOT_FOUND' });
    }
    expect(
      await prisma.activityLog.count({ where: { action: 'message_delete', resource: `message:${message.id}` } }),
    ).toBe(1);
  });

  it('answers 401 without a token and 403 to a non-admin, leaving the message', async () => {
    const { event, alice } = await createTrio();
    const room = await ensureEventRoom(event);
    const message = await prisma.message.create({ data: { roomId: room.id, userId: alice.user.id, content: 'stays' } });
    expect((await server.request.delete(`/api/admin/messages/${message.id}`)).status).toBe(401);
    const other = await createUser();
    const res = await remove(message.id, other);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('ADMIN_REQUIRED');
    expect((await prisma.message.findUniqueOrThrow({ where: { id: message.id } })).deletedAt).toBeNull();
  });
});

import { prisma } from '../helpers/db';
import { createEvent, createUser, ensureEventRoom, joinEvent } from '../helpers/factories';
import { api } from '../helpers/server';

async function seedMessages(roomId: number, userId: number, count: number) {
  await prisma.message.createMany({
    data: Array.from({ length: count }, (_, i) => ({ roomId, userId, content: `message ${i + 1}` })),
  });
  return prisma.message.findMany({ where: { roomId }, orderBy: { id: 'asc' } });
}

describe('GET /events/:slug/messages', () => {
  it('checks in order: 401 without token, 404 event, 403 non-participant, 404 room', async () => {
    const event = await createEvent();
    expect((await api().get(`/api/events/${event.slug}/messages`)).status).toBe(401);
    const user = await createUser();
    const unknown = await api().get('/api/events/NoSuchEvent11/messages').set('Authorization', user.auth);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toBe('Event not found');
    const stranger = await api().get(`/api/events/${event.slug}/messages`).set('Authorization', user.auth);
    expect(stranger.status).toBe(403);
    expect(stranger.body.error).toBe('You must be a participant of this event');
    await joinEvent(user.user, event);
    const noRoom = await api().get(`/api/events/${event.slug}/messages`).set('Authorization', user.auth);
    expect(noRoom.status).toBe(404);
    expect(noRoom.body.error).toBe('Chat room not found');
  });

  it('pages across 45 messages with before: newest page first, each page oldest first, hasMore = returned equals limit', async () => {
    const event = await createEvent();
    const room = await ensureEventRoom(event);
    const { user, auth } = await createUser();
    await joinEvent(user, event);
    const all = await seedMessages(room.id, user.id, 45);

    const get = (query: string) => api().get(`/api/events/${event.slug}/messages${query}`).set('Authorization', auth);
    const page1 = await get('');
    expect(page1.status).toBe(200);
    expect(Object.keys(page1.body).sort()).toEqual(['data', 'hasMore', 'success']);
    expect(page1.body.data.map((m: { id: number }) => m.id)).toEqual(all.slice(25).map((m) => m.id));
    expect(page1.body.hasMore).toBe(true);
    expect(page1.body.data[0]).toEqual({
      id: all[25].id,
      roomId: room.id,
      userId: user.id,
      username: user.username,
      avatar: user.avatar,
      content: 'message 26',
      type: 'text',
      createdAt: all[25].createdAt.toISOString(),
    });

    const page2 = await get(`?before=${page1.body.data[0].id}`);
    expect(page2.body.data.map((m: { id: number }) => m.id)).toEqual(all.slice(5, 25).map((m) => m.id));
    expect(page2.body.hasMore).toBe(true);
    const page3 = await get(`?before=${page2.body.data[0].id}`);
    expect(page3.body.data.map((m: { id: number }) => m.id)).toEqual(all.slice(0, 5).map((m) => m.id));
    expect(page3.body.hasMore).toBe(false);

    const seen = [...page3.body.data, ...page2.body.data, ...page1.body.data].map((m: { id: number }) => m.id);
    expect(seen).toEqual(all.map((m) => m.id));

    const limited = await get(`?limit=45`);
    expect(limited.body.data).toHaveLength(45);
    expect(limited.body.hasMore).toBe(true); // returned equals limit (SPEC.md)
    const small = await get(`?limit=7&before=${all[10].id}`);
    expect(small.body.data.map((m: { content: string }) => m.content)).toEqual(
      ['4', '5', '6', '7', '8', '9', '10'].map((n) => `message ${n}`),
    );
  });

  it('returns a message containing <script> byte-for-byte', async () => {
    const event = await createEvent();
    const room = await ensureEventRoom(event);
    const { user, auth } = await createUser();
    await joinEvent(user, event);
    const content = '  <script>alert("x")</script> & \'quotes\' <b>bold</b> ünïcødé 💃  ';
    await prisma.message.create({ data: { roomId: room.id, userId: user.id, content } });
    const res = await api().get(`/api/events/${event.slug}/messages`).set('Authorization', auth);
    expect(res.body.data[0].content).toBe(content);
  });

  it('refuses invalid before and limit with 400 "Validation failed"', async () => {
    const event = await createEvent();
    await ensureEventRoom(event);
    const { user, auth } = await createUser();
    await joinEvent(user, event);
    for (const query of [
      '?limit=0',
      '?limit=101',
      '?limit=abc',
      '?before=-1',
      '?before=0',
      '?before=1.5',
      '?before=x',
    ]) {
      const res = await api().get(`/api/events/${event.slug}/messages${query}`).set('Authorization', auth);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ success: false, error: 'Validation failed', details: [expect.any(Object)] });
    }
  });

  it('does not show messages of another event room', async () => {
    const a = await createEvent();
    const b = await createEvent();
    const roomA = await ensureEventRoom(a);
    await ensureEventRoom(b);
    const { user, auth } = await createUser();
    await joinEvent(user, a);
    await joinEvent(user, b);
    await prisma.message.create({ data: { roomId: roomA.id, userId: user.id, content: 'only in A' } });
    const res = await api().get(`/api/events/${b.slug}/messages`).set('Authorization', auth);
    expect(res.body.data).toEqual([]);
    expect(res.body.hasMore).toBe(false);
  });
});

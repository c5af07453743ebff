import { prisma } from '../helpers/db';
import { createAdmin, createEvent, createUser, joinEvent } from '../helpers/factories';
import { api } from '../helpers/server';

const DAY = 24 * 3600 * 1000;

describe('GET /events', () => {
  it('requires a Bearer token', async () => {
    expect((await api().get('/api/events')).status).toBe(401);
  });

  it('lists joined events first, then by startDate, with isJoined, joinedAt and the live participant count', async () => {
    const me = await createUser();
    const other = await createUser();
    const base = Date.now() + 3000 * DAY + Math.floor(Math.random() * 1000) * DAY;
    const early = await createEvent({ startDate: new Date(base), endDate: new Date(base + DAY) });
    const late = await createEvent({ startDate: new Date(base + 10 * DAY), endDate: new Date(base + 11 * DAY) });
    const joinedLate = await createEvent({ startDate: new Date(base + 20 * DAY), endDate: new Date(base + 21 * DAY) });
    const joined = await joinEvent(me.user, joinedLate);
    await joinEvent(other.user, joinedLate);
    await joinEvent(other.user, early);
    // a stale stored counter does not leak into the list: the count is live
    await prisma.event.update({ where: { id: early.id }, data: { participantsCount: 99 } });

    const res = await api().get('/api/events').set('Authorization', me.auth);
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(res.body.data.length);
    const slugs: string[] = res.body.data.map((e: { slug: string }) => e.slug);
    expect(slugs[0]).toBe(joinedLate.slug);
    expect(slugs.indexOf(early.slug)).toBeLessThan(slugs.indexOf(late.slug));
    const first = res.body.data[0];
    expect(first).toEqual({
      id: joinedLate.id,
      slug: joinedLate.slug,
      name: joinedLate.name,
      location: joinedLate.location,
      startDate: joinedLate.startDate.toISOString(),
      endDate: joinedLate.endDate.toISOString(),
      worldRegistryId: null,
      participantsCount: 2,
      description: joinedLate.description,
      createdAt: joinedLate.createdAt.toISOString(),
      isJoined: true,
      joinedAt: joined.joinedAt.toISOString(),
    });
    const earlyItem = res.body.data.find((e: { slug: string }) => e.slug === early.slug);
    expect(earlyItem).toMatchObject({ isJoined: false, joinedAt: null, participantsCount: 1 });
    // every joined event precedes every other event
    const flags: boolean[] = res.body.data.map((e: { isJoined: boolean }) => e.isJoined);
    expect(flags.indexOf(false) === -1 || flags.lastIndexOf(true) < flags.indexOf(false)).toBe(true);
  });
});

describe('GET /events/:slug', () => {
  it('is public and returns the event with its event room only and the number of matches', async () => {
    const event = await createEvent({ withChatRoom: true });
    const a = await createUser();
    const b = await createUser();
    await joinEvent(a.user, event);
    await joinEvent(b.user, event);
    const match = await prisma.match.create({
      data: {
        slug: `m${Date.now()}abcdef`,
        eventId: event.id,
        user1Id: a.user.id,
        user2Id: b.user.id,
        status: 'accepted',
      },
    });
    await prisma.chatRoom.create({ data: { matchId: match.id, type: 'private' } });

    const res = await api().get(`/api/events/${event.slug}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: event.id, slug: event.slug, name: event.name, _count: { matches: 1 } });
    expect(res.body.data.chatRooms).toEqual([
      { id: expect.any(Number), eventId: event.id, type: 'event', createdAt: expect.any(String) },
    ]);
  });

  it('answers 404 "Event not found" for an unknown slug', async () => {
    const res = await api().get('/api/events/DoesNotExist42');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ success: false, error: 'Event not found', code: 'EVENT_NOT_FOUND' });
    const long = await api().get(`/api/events/${'x'.repeat(200)}`);
    expect(long.status).toBe(404);
    expect(long.body.error).toBe('Event not found');
  });
});

describe('GET /events/:slug/details', () => {
  it('gives admins the check-in block, creating the token once and reusing it (also concurrently)', async () => {
    const event = await createEvent();
    const admin = await createAdmin();
    const results = await Promise.all(
      Array.from({ length: 10 }, () => api().get(`/api/events/${event.slug}/details`).set('Authorization', admin.auth)),
    );
    expect(results.every((r) => r.status === 200)).toBe(true);
    const tokens = new Set(results.map((r) => r.body.data.checkin.token));
    expect(tokens.size).toBe(1);
    const [token] = [...tokens];
    expect(await prisma.eventCheckinToken.findMany({ where: { eventId: event.id } })).toEqual([
      expect.objectContaining({ token }),
    ]);
    expect(results[0].body.data.checkin).toEqual({
      token,
      url: `http://frontend.test/events/checkin/${token}`,
      validFrom: new Date(event.startDate.getTime() - DAY).toISOString(),
      validUntil: new Date(event.endDate.getTime() + DAY).toISOString(),
    });
    const again = await api().get(`/api/events/${event.slug}/details`).set('Authorization', admin.auth);
    expect(again.body.data.checkin.token).toBe(token);
  });

  it('lists participants newest first with stats; the event includes registrationDeadline and matchingRunAt', async () => {
    const deadline = new Date(Date.now() + 5 * DAY);
    const event = await createEvent({ registrationDeadline: deadline });
    const first = await createUser({ firstName: 'Ann', lastName: 'First' });
    const second = await createUser();
    await joinEvent(first.user, event, { joinedAt: new Date(Date.now() - 60_000) });
    await joinEvent(second.user, event);
    const res = await api().get(`/api/events/${event.slug}/details`).set('Authorization', first.auth);
    expect(res.status).toBe(200);
    expect(res.body.data.event).toEqual({
      id: event.id,
      slug: event.slug,
      name: event.name,
      location: event.location,
      startDate: event.startDate.toISOString(),
      endDate: event.endDate.toISOString(),
      description: event.description,
      registrationDeadline: deadline.toISOString(),
      matchingRunAt: null,
    });
    expect(res.body.data.participants.map((p: { userId: number }) => p.userId)).toEqual([
      second.user.id,
      first.user.id,
    ]);
    expect(res.body.data.participants[1]).toEqual({
      userId: first.user.id,
      username: first.user.username,
      avatar: first.user.avatar,
      firstName: 'Ann',
      lastName: 'First',
      joinedAt: expect.any(String),
    });
    expect(res.body.data.stats).toEqual({ totalParticipants: 2 });
    expect(res.body.data.checkin.token).toEqual(expect.any(String));
  });

  it('hides the check-in token from authenticated non-participants (checkin: null) and creates none for them', async () => {
    const event = await createEvent();
    const stranger = await createUser();
    const res = await api().get(`/api/events/${event.slug}/details`).set('Authorization', stranger.auth);
    expect(res.status).toBe(200);
    expect(res.body.data.checkin).toBeNull();
    expect(await prisma.eventCheckinToken.count({ where: { eventId: event.id } })).toBe(0);
  });

  it('requires a Bearer token and answers 404 for an unknown event', async () => {
    const event = await createEvent();
    expect((await api().get(`/api/events/${event.slug}/details`)).status).toBe(401);
    const { auth } = await createUser();
    const res = await api().get('/api/events/NoSuchEvent99/details').set('Authorization', auth);
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('Event not found');
  });
});

describe('GET /events/:slug/checkin-qr', () => {
  it('returns a PNG for admins and an SVG with ?format=svg, encoding the check-in url', async () => {
    const event = await createEvent();
    const admin = await createAdmin();
    const png = await api()
      .get(`/api/events/${event.slug}/checkin-qr`)
      .set('Authorization', admin.auth)
      .buffer(true)
      .parse((res, cb) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => cb(null, Buffer.concat(chunks)));
      });
    expect(png.status).toBe(200);
    expect(png.headers['content-type']).toBe('image/png');
    expect((png.body as Buffer).subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(await prisma.eventCheckinToken.count({ where: { eventId: event.id } })).toBe(1);

    const svg = await api()
      .get(`/api/events/${event.slug}/checkin-qr?format=svg`)
      .set('Authorization', admin.auth)
      .buffer(true);
    expect(svg.status).toBe(200);
    expect(svg.headers['content-type']).toMatch(/^image\/svg\+xml/);
    expect(String(svg.text ?? svg.body)).toContain('<svg');
  });

  it('lets participants fetch it and refuses other users with 403', async () => {
    const event = await createEvent();
    const participant = await createUser();
    await joinEvent(participant.user, event);
    const ok = await api()
      .get(`/api/events/${event.slug}/checkin-qr?format=svg`)
      .set('Authorization', participant.auth);
    expect(ok.status).toBe(200);
    const stranger = await createUser();
    const refused = await api().get(`/api/events/${event.slug}/checkin-qr`).set('Authorization', stranger.auth);
    expect(refused.status).toBe(403);
    expect(refused.body.success).toBe(false);
  });

  it('answers 400 for an unknown format and 404 for an unknown event', async () => {
    const event = await createEvent();
    const admin = await createAdmin();
    const bad = await api().get(`/api/events/${event.slug}/checkin-qr?format=gif`).set('Authorization', admin.auth);
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe('Validation failed');
    const missing = await api().get('/api/events/NoSuchEvent77/checkin-qr').set('Authorization', admin.auth);
    expect(missing.status).toBe(404);
  });
});

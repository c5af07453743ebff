import { prisma } from '../helpers/db';
import { createEvent, createUser, joinEvent } from '../helpers/factories';
import { createTrio, insertMatch } from '../helpers/matches';
import { api } from '../helpers/server';

const request = api();

describe('POST /matches', () => {
  it('creates a pending match (201) with the caller-view object and a random slug', async () => {
    const { event, alice, bob } = await createTrio({ bob: { firstName: 'Bob', lastName: 'B' } });
    const res = await request
      .post('/api/matches')
      .set('Authorization', alice.auth)
      .send({ targetUserId: bob.user.id, eventSlug: event.slug });
    expect(res.status).toBe(201);
    expect(res.body.success).toBe(true);
    const m = res.body.data;
    expect(m).toMatchObject({
      status: 'pending',
      source: 'manual',
      respondedAt: null,
      event: { id: event.id, slug: event.slug, name: event.name },
      partner: {
        id: bob.user.id,
        username: bob.user.username,
        avatar: bob.user.avatar,
        firstName: 'Bob',
        lastName: 'B',
      },
      isInitiator: true,
      roomId: null,
    });
    expect(m.slug).toMatch(/^[A-Za-z0-9]{12,}$/);
    // random, not derived from the id (a random slug may still contain the id's digits by chance)
    expect(m.slug).not.toMatch(/^\d+$/);
    expect(m.slug).not.toBe(String(m.id));
    const row = await prisma.match.findUniqueOrThrow({ where: { slug: m.slug } });
    expect(row).toMatchObject({ user1Id: alice.user.id, user2Id: bob.user.id, eventId: event.id, status: 'pending' });
    const log = await prisma.activityLog.findFirst({
      where: { category: 'match', action: 'match_create', resource: `match:${m.slug}` },
    });
    expect(log).toMatchObject({ userId: alice.user.id, success: true });
  });

  it('answers 404 for an unknown event and 403 when the requester is not a participant', async () => {
    const { event, bob } = await createTrio();
    const outsider = await createUser();
    const unknown = await request
      .post('/api/matches')
      .set('Authorization', outsider.auth)
      .send({ targetUserId: bob.user.id, eventSlug: 'noSuchEvent123' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toBe('Event not found');
    const res = await request
      .post('/api/matches')
      .set('Authorization', outsider.auth)
      .send({ targetUserId: bob.user.id, eventSlug: event.slug });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('You must be a participant of this event');
  });

  it('refuses oneself, a non-participant target and an unknown user with 400', async () => {
    const { event, alice } = await createTrio();
    const outsider = await createUser();
    const self = await request
      .post('/api/matches')
      .set('Authorization', alice.auth)
      .send({ targetUserId: alice.user.id, eventSlug: event.slug });
    expect(self.status).toBe(400);
    expect(self.body.error).toBe('You cannot create a match with yourself');
    for (const targetUserId of [outsider.user.id, 2_000_000_000]) {
      const res = await request
        .post('/api/matches')
        .set('Authorization', alice.auth)
        .send({ targetUserId, eventSlug: event.slug });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('Target user is not a participant of this event');
    }
    expect(await prisma.match.count({ where: { eventId: event.id } })).toBe(0);
  });

  it('validates the body (400 Validation failed with details)', async () => {
    const { event, alice } = await createTrio();
    for (const body of [
      {},
      { targetUserId: 'abc', eventSlug: event.slug },
      { targetUserId: 1.5, eventSlug: event.slug },
      { targetUserId: 2, eventSlug: 42 },
      { targetUserId: 1e20, eventSlug: event.slug },
    ]) {
      const res = await request.post('/api/matches').set('Authorization', alice.auth).send(body);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('Validation failed');
      expect(res.body.details.length).toBeGreaterThan(0);
    }
  });

  it('refuses a duplicate in the same and the reverse direction with 409 "Match already exists"', async () => {
    const { event, alice, bob } = await createTrio();
    const first = await request
      .post('/api/matches')
      .set('Authorization', alice.auth)
      .send({ targetUserId: bob.user.id, eventSlug: event.slug });
    expect(first.status).toBe(201);
    const again = await request
      .post('/api/matches')
      .set('Authorization', alice.auth)
      .send({ targetUserId: bob.user.id, eventSlug: event.slug });
    expect(again.status).toBe(409);
    expect(again.body.error).toBe('Match already exists');
    const reverse = await request
      .post('/api/matches')
      .set('Authorization', bob.auth)
      .send({ targetUserId: alice.user.id, eventSlug: event.slug });
    expect(reverse.status).toBe(409);
    expect(await prisma.match.count({ where: { eventId: event.id } })).toBe(1);
  });

  it('records a refused duplicate in the activity log as a failed match_create', async () => {
    const { event, alice, bob } = await createTrio();
    await request
      .post('/api/matches')
      .set('Authorization', alice.auth)
      .send({ targetUserId: bob.user.id, eventSlug: event.slug })
      .expect(201);
    await request
      .post('/api/matches')
      .set('Authorization', bob.auth)
      .send({ targetUserId: alice.user.id, eventSlug: event.slug })
      .expect(409);
    const log = await prisma.activityLog.findFirst({
      where: { action: 'match_create', success: false, resource: `event:${event.slug}` },
    });
    expect(log).toMatchObject({
      category: 'match',
      userId: bob.user.id,
      metadata: { reason: 'duplicate', targetUserId: alice.user.id },
    });
  });

  it('allows the same pair at another event', async () => {
    const { alice, bob } = await createTrio();
    const other = await createEvent();
    await joinEvent(alice.user, other);
    await joinEvent(bob.user, other);
    await insertMatch(other, bob.user, alice.user);
    const res = await request
      .post('/api/matches')
      .set('Authorization', alice.auth)
      .send({ targetUserId: bob.user.id, eventSlug: other.slug });
    expect(res.status).toBe(409);
  });

  it('requires a token and a verified e-mail', async () => {
    const { event, bob } = await createTrio();
    const unverified = await createUser({ emailVerified: false });
    await joinEvent(unverified.user, event);
    expect((await request.post('/api/matches').send({ targetUserId: bob.user.id, eventSlug: event.slug })).status).toBe(
      401,
    );
    const res = await request
      .post('/api/matches')
      .set('Authorization', unverified.auth)
      .send({ targetUserId: bob.user.id, eventSlug: event.slug });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('Email verification required');
  });

  it('refuses the 21st pending outgoing request with 429', async () => {
    const event = await createEvent();
    const alice = await createUser();
    await joinEvent(alice.user, event);
    const targets = [];
    for (let i = 0; i < 21; i++) {
      const t = await createUser();
      await joinEvent(t.user, event);
      targets.push(t);
    }
    for (const t of targets.slice(0, 20)) await insertMatch(event, alice.user, t.user);
    const res = await request
      .post('/api/matches')
      .set('Authorization', alice.auth)
      .send({ targetUserId: targets[20].user.id, eventSlug: event.slug });
    expect(res.status).toBe(429);
    expect(res.body.code).toBe('TOO_MANY_PENDING_MATCHES');
    // accepted matches do not count
    await prisma.match.updateMany({
      where: { user1Id: alice.user.id, user2Id: targets[0].user.id },
      data: { status: 'accepted' },
    });
    const ok = await request
      .post('/api/matches')
      .set('Authorization', alice.auth)
      .send({ targetUserId: targets[20].user.id, eventSlug: event.slug });
    expect(ok.status).toBe(201);
  });
});

describe('GET /matches and GET /matches/:slug', () => {
  it("lists the caller's matches newest first, filtered by eventSlug and status", async () => {
    const { event, alice, bob, carol } = await createTrio();
    const other = await createEvent();
    await joinEvent(alice.user, other);
    await joinEvent(carol.user, other);
    const m1 = await insertMatch(event, alice.user, bob.user, 'accepted');
    const m2 = await insertMatch(event, carol.user, alice.user);
    const m3 = await insertMatch(other, alice.user, carol.user);
    const all = await request.get('/api/matches').set('Authorization', alice.auth);
    expect(all.status).toBe(200);
    expect(all.body.count).toBe(3);
    expect(all.body.data.map((m: { slug: string }) => m.slug)).toEqual([m3.slug, m2.slug, m1.slug]);
    const m2View = all.body.data[1];
    expect(m2View).toMatchObject({ isInitiator: false, partner: { id: carol.user.id } });
    const byEvent = await request.get(`/api/matches?eventSlug=${event.slug}`).set('Authorization', alice.auth);
    expect(byEvent.body.data.map((m: { slug: string }) => m.slug)).toEqual([m2.slug, m1.slug]);
    const accepted = await request
      .get(`/api/matches?eventSlug=${event.slug}&status=accepted`)
      .set('Authorization', alice.auth);
    expect(accepted.body.data).toHaveLength(1);
    expect(accepted.body.data[0]).toMatchObject({ slug: m1.slug, roomId: m1.chatRoom!.id, status: 'accepted' });
    // bob sees only his own
    const bobs = await request.get('/api/matches').set('Authorization', bob.auth);
    expect(bobs.body.data.map((m: { slug: string }) => m.slug)).toEqual([m1.slug]);
  });

  it('answers 400 for an invalid status and 404 for an unknown eventSlug', async () => {
    const { alice } = await createTrio();
    const bad = await request.get('/api/matches?status=rejected').set('Authorization', alice.auth);
    expect(bad.status).toBe(400);
    expect(bad.body.details[0].field).toBe('status');
    const unknown = await request.get('/api/matches?eventSlug=nope123456789').set('Authorization', alice.auth);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toBe('Event not found');
  });

  it('GET /matches/:slug adds hasRated for the caller', async () => {
    const { event, alice, bob } = await createTrio();
    const m = await insertMatch(event, alice.user, bob.user, 'accepted');
    await prisma.rating.create({
      data: { matchId: m.id, raterId: alice.user.id, ratedId: bob.user.id, eventId: event.id, score: 4 },
    });
    const a = await request.get(`/api/matches/${m.slug}`).set('Authorization', alice.auth);
    expect(a.status).toBe(200);
    expect(a.body.data).toMatchObject({
      slug: m.slug,
      hasRated: true,
      isInitiator: true,
      partner: { id: bob.user.id },
    });
    const b = await request.get(`/api/matches/${m.slug}`).set('Authorization', bob.auth);
    expect(b.body.data).toMatchObject({ hasRated: false, isInitiator: false, partner: { id: alice.user.id } });
  });
});

describe('PUT /matches/:slug/accept', () => {
  it('lets the target accept: accepted, respondedAt set, private room created', async () => {
    const { event, alice, bob } = await createTrio();
    const m = await insertMatch(event, alice.user, bob.user);
    const res = await request.put(`/api/matches/${m.slug}/accept`).set('Authorization', bob.auth);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ slug: m.slug, status: 'accepted', isInitiator: false });
    expect(res.body.data.respondedAt).not.toBeNull();
    const room = await prisma.chatRoom.findUniqueOrThrow({ where: { matchId: m.id } });
    expect(room).toMatchObject({ type: 'private', eventId: null });
    expect(res.body.data.roomId).toBe(room.id);
    expect(await prisma.activityLog.count({ where: { action: 'match_accept', resource: `match:${m.slug}` } })).toBe(1);
  });

  it('answers 403 to the requester and 400 for a match that is no longer pending', async () => {
    const { event, alice, bob } = await createTrio();
    const m = await insertMatch(event, alice.user, bob.user);
    const own = await request.put(`/api/matches/${m.slug}/accept`).set('Authorization', alice.auth);
    expect(own.status).toBe(403);
    expect((await prisma.match.findUniqueOrThrow({ where: { id: m.id } })).status).toBe('pending');
    await request.put(`/api/matches/${m.slug}/accept`).set('Authorization', bob.auth).expect(200);
    const again = await request.put(`/api/matches/${m.slug}/accept`).set('Authorization', bob.auth);
    expect(again.status).toBe(400);
    expect(again.body.error).toBe('Match is not pending');
    expect(await prisma.chatRoom.count({ where: { matchId: m.id } })).toBe(1);
  });
});

describe('DELETE /matches/:slug', () => {
  it('rejection by the target deletes the match', async () => {
    const { event, alice, bob } = await createTrio();
    const m = await insertMatch(event, alice.user, bob.user);
    const res = await request.delete(`/api/matches/${m.slug}`).set('Authorization', bob.auth);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: 'Match rejected' });
    expect(await prisma.match.findUnique({ where: { id: m.id } })).toBeNull();
    expect(await prisma.activityLog.count({ where: { action: 'match_reject', resource: `match:${m.slug}` } })).toBe(1);
  });

  it('cancellation removes the room and messages and keeps the ratings with matchId null', async () => {
    const { event, alice, bob } = await createTrio();
    const m = await insertMatch(event, alice.user, bob.user, 'accepted');
    await prisma.message.create({ data: { roomId: m.chatRoom!.id, userId: alice.user.id, content: 'hi' } });
    const rating = await prisma.rating.create({
      data: { matchId: m.id, raterId: bob.user.id, ratedId: alice.user.id, eventId: event.id, score: 5 },
    });
    const res = await request.delete(`/api/matches/${m.slug}`).set('Authorization', alice.auth);
    expect(res.body).toEqual({ success: true, message: 'Match cancelled' });
    expect(await prisma.chatRoom.count({ where: { id: m.chatRoom!.id } })).toBe(0);
    expect(await prisma.message.count({ where: { roomId: m.chatRoom!.id } })).toBe(0);
    expect(await prisma.rating.findUniqueOrThrow({ where: { id: rating.id } })).toMatchObject({
      matchId: null,
      score: 5,
    });
    expect(await prisma.activityLog.count({ where: { action: 'match_cancel', resource: `match:${m.slug}` } })).toBe(1);
    // and the pair may match again afterwards
    const again = await request
      .post('/api/matches')
      .set('Authorization', bob.auth)
      .send({ targetUserId: alice.user.id, eventSlug: event.slug });
    expect(again.status).toBe(201);
  });
});

describe('GET /matches/:slug/messages', () => {
  it('pages the private history (oldest first, before/limit, hasMore)', async () => {
    const { event, alice, bob } = await createTrio();
    const m = await insertMatch(event, alice.user, bob.user, 'accepted');
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push(
        (
          await prisma.message.create({
            data: { roomId: m.chatRoom!.id, userId: i % 2 ? bob.user.id : alice.user.id, content: `m${i}` },
          })
        ).id,
      );
    }
    const page = await request.get(`/api/matches/${m.slug}/messages?limit=3`).set('Authorization', bob.auth);
    expect(page.status).toBe(200);
    expect(page.body.success).toBe(true);
    expect(page.body.data.map((x: { content: string }) => x.content)).toEqual(['m2', 'm3', 'm4']);
    expect(page.body.hasMore).toBe(true);
    const older = await request
      .get(`/api/matches/${m.slug}/messages?limit=3&before=${ids[2]}`)
      .set('Authorization', alice.auth);
    expect(older.body.data.map((x: { content: string }) => x.content)).toEqual(['m0', 'm1']);
    expect(older.body.hasMore).toBe(false);
    expect(older.body.data[0]).toMatchObject({
      userId: alice.user.id,
      username: alice.user.username,
      roomId: m.chatRoom!.id,
    });
    const bad = await request.get(`/api/matches/${m.slug}/messages?limit=0`).set('Authorization', alice.auth);
    expect(bad.status).toBe(400);
  });

  it('answers an empty page for a pending match (no room yet)', async () => {
    const { event, alice, bob } = await createTrio();
    const m = await insertMatch(event, alice.user, bob.user);
    const res = await request.get(`/api/matches/${m.slug}/messages`).set('Authorization', alice.auth);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, data: [], hasMore: false });
  });
});

describe('a third user and unknown slugs', () => {
  it('get 404 "Match not found" on every match route, and nothing changes', async () => {
    const { event, alice, bob, carol } = await createTrio();
    const pending = await insertMatch(event, alice.user, bob.user);
    const accepted = await insertMatch(
      event,
      carol.user,
      await (async () => {
        const d = await createUser();
        await joinEvent(d.user, event);
        return d.user;
      })(),
      'accepted',
    );
    // carol is in `accepted` but not in `pending`; alice is in neither of carol's
    const attempts = [
      () => request.get(`/api/matches/${pending.slug}`).set('Authorization', carol.auth),
      () => request.put(`/api/matches/${pending.slug}/accept`).set('Authorization', carol.auth),
      () => request.delete(`/api/matches/${pending.slug}`).set('Authorization', carol.auth),
      () => request.get(`/api/matches/${pending.slug}/messages`).set('Authorization', carol.auth),
      () => request.post(`/api/matches/${accepted.slug}/ratings`).set('Authorization', alice.auth).send({ score: 5 }),
      () => request.get(`/api/matches/${accepted.slug}/messages`).set('Authorization', alice.auth),
      () => request.delete(`/api/matches/${accepted.slug}`).set('Authorization', alice.auth),
      () => request.get('/api/matches/doesNotExist12345').set('Authorization', alice.auth),
      () => request.put('/api/matches/doesNotExist12345/accept').set('Authorization', alice.auth),
      () => request.post('/api/matches/doesNotExist12345/ratings').set('Authorization', alice.auth).send({ score: 3 }),
    ];
    for (const attempt of attempts) {
      const res = await attempt();
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ success: false, error: 'Match not found', code: 'MATCH_NOT_FOUND' });
    }
    expect(await prisma.match.findUniqueOrThrow({ where: { id: pending.id } })).toMatchObject({ status: 'pending' });
    expect(await prisma.match.findUniqueOrThrow({ where: { id: accepted.id } })).toMatchObject({ status: 'accepted' });
    expect(await prisma.rating.count({ where: { matchId: accepted.id } })).toBe(0);
  });
});

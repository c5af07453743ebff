import { prisma } from '../helpers/db';
import { createTrio, insertMatch } from '../helpers/matches';
import { decide, heat, person, runMatching, scenario } from '../helpers/matching';
import { api } from '../helpers/server';

const request = api();

describe('abuse limits of matches and ratings', () => {
  it('50 request+cancel cycles toward one user: requests beyond the burst get 429 and the target is not flooded', async () => {
    const { event, alice, bob } = await createTrio();
    const statuses: number[] = [];
    for (let i = 0; i < 50; i++) {
      const res = await request
        .post('/api/matches')
        .set('Authorization', alice.auth)
        .send({ targetUserId: bob.user.id, eventSlug: event.slug });
      statuses.push(res.status);
      if (res.status === 201)
        await request.delete(`/api/matches/${res.body.data.slug}`).set('Authorization', alice.auth).expect(200);
      else {
        expect(res.status).toBe(429);
        expect(res.body).toMatchObject({
          error: 'You are sending match requests too fast',
          code: 'MATCH_REQUESTS_RATE_LIMITED',
        });
      }
    }
    // a burst of 10, refilled at 10 a minute: the loop takes seconds, not minutes
    const created = statuses.filter((s) => s === 201).length;
    expect(created).toBeGreaterThanOrEqual(10);
    expect(created).toBeLessThan(25);
    const logged = await prisma.activityLog.count({
      where: { userId: alice.user.id, action: 'match_create', success: true },
    });
    expect(logged).toBe(created);
  });

  it("a refused duplicate request does not use up the requester's budget", async () => {
    const { event, alice, bob, carol } = await createTrio();
    await insertMatch(event, alice.user, bob.user);
    for (let i = 0; i < 15; i++) {
      const dup = await request
        .post('/api/matches')
        .set('Authorization', alice.auth)
        .send({ targetUserId: bob.user.id, eventSlug: event.slug });
      expect(dup.status).toBe(409);
    }
    const res = await request
      .post('/api/matches')
      .set('Authorization', alice.auth)
      .send({ targetUserId: carol.user.id, eventSlug: event.slug });
    expect(res.status).toBe(201);
  });

  it('one rating per rater, rated user and event: rating again through a new match answers 409 "already rated"', async () => {
    const { event, alice, bob } = await createTrio();
    const first = await insertMatch(event, alice.user, bob.user, 'accepted');
    await request
      .post(`/api/matches/${first.slug}/ratings`)
      .set('Authorization', alice.auth)
      .send({ score: 1 })
      .expect(201);
    await request.delete(`/api/matches/${first.slug}`).set('Authorization', alice.auth).expect(200);
    const second = await insertMatch(event, alice.user, bob.user, 'accepted');
    const again = await request
      .post(`/api/matches/${second.slug}/ratings`)
      .set('Authorization', alice.auth)
      .send({ score: 1 });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ success: false, error: 'You have already rated this match', code: 'ALREADY_RATED' });
    expect(
      await prisma.rating.count({ where: { raterId: alice.user.id, ratedId: bob.user.id, eventId: event.id } }),
    ).toBe(1);
    // the other direction is a rating of its own
    await request
      .post(`/api/matches/${second.slug}/ratings`)
      .set('Authorization', bob.auth)
      .send({ score: 5 })
      .expect(201);
  });

  it('an unverified recorder accepting a suggestion gets 403 "Email verification required" (as POST /matches); rejecting is allowed', async () => {
    const { event, admin } = await scenario();
    const dancer = await person(event);
    const recorder = await person(event);
    await heat(dancer, event, { n: 1 });
    await runMatching(event, admin);
    await prisma.user.update({ where: { id: recorder.user.id }, data: { emailVerified: false } });
    const first = await prisma.recordingSuggestion.findFirstOrThrow({
      where: { eventId: event.id, recorderId: recorder.user.id },
    });

    const viaMatches = await request
      .post('/api/matches')
      .set('Authorization', recorder.auth)
      .send({ targetUserId: dancer.user.id, eventSlug: event.slug });
    const accept = await decide(event, recorder, first.id, 'accepted');
    expect(accept.status).toBe(403);
    expect(accept.body).toEqual(viaMatches.body);
    expect(accept.body).toEqual({ success: false, error: 'Email verification required', code: 'EMAIL_NOT_VERIFIED' });
    expect((await prisma.recordingSuggestion.findUniqueOrThrow({ where: { id: first.id } })).status).toBe('pending');
    expect(await prisma.match.count({ where: { eventId: event.id } })).toBe(0);

    expect((await decide(event, recorder, first.id, 'rejected')).status).toBe(200);
  });
});

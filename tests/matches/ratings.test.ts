import { prisma } from '../helpers/db';
import { createUser, joinEvent } from '../helpers/factories';
import { createTrio, insertMatch } from '../helpers/matches';
import { api } from '../helpers/server';

const request = api();

describe('POST /matches/:slug/ratings', () => {
  it('stores the rating (201) with rater, rated and event; the match stays accepted until both rated', async () => {
    const { event, alice, bob } = await createTrio();
    const m = await insertMatch(event, alice.user, bob.user, 'accepted');
    const comment = '<b>Great</b> partner & "fun"';
    const res = await request
      .post(`/api/matches/${m.slug}/ratings`)
      .set('Authorization', alice.auth)
      .send({ score: 5, comment, wouldCollaborateAgain: true });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      score: 5,
      comment,
      wouldCollaborateAgain: true,
      matchId: m.id,
      rater: { id: alice.user.id, username: alice.user.username, avatar: alice.user.avatar },
      rated: { id: bob.user.id, username: bob.user.username, avatar: bob.user.avatar },
      event: { id: event.id, slug: event.slug, name: event.name },
    });
    const row = await prisma.rating.findUniqueOrThrow({ where: { id: res.body.data.id } });
    expect(row).toMatchObject({ raterId: alice.user.id, ratedId: bob.user.id, eventId: event.id, comment });
    expect((await prisma.match.findUniqueOrThrow({ where: { id: m.id } })).status).toBe('accepted');
    expect(
      await prisma.activityLog.count({ where: { action: 'match_rate', resource: `match:${m.slug}`, success: true } }),
    ).toBe(1);

    const get = await request.get(`/api/matches/${m.slug}`).set('Authorization', alice.auth);
    expect(get.body.data.hasRated).toBe(true);

    const second = await request
      .post(`/api/matches/${m.slug}/ratings`)
      .set('Authorization', bob.auth)
      .send({ score: 4 });
    expect(second.status).toBe(201);
    expect(second.body.data).toMatchObject({
      comment: null,
      wouldCollaborateAgain: null,
      rated: { id: alice.user.id },
    });
    expect((await prisma.match.findUniqueOrThrow({ where: { id: m.id } })).status).toBe('completed');
  });

  it('refuses a second rating by the same rater with 409', async () => {
    const { event, alice, bob } = await createTrio();
    const m = await insertMatch(event, alice.user, bob.user, 'accepted');
    await request
      .post(`/api/matches/${m.slug}/ratings`)
      .set('Authorization', alice.auth)
      .send({ score: 2 })
      .expect(201);
    const again = await request
      .post(`/api/matches/${m.slug}/ratings`)
      .set('Authorization', alice.auth)
      .send({ score: 5 });
    expect(again.status).toBe(409);
    expect(again.body.error).toBe('You have already rated this match');
    expect(await prisma.rating.count({ where: { matchId: m.id } })).toBe(1);
    const refused = await prisma.activityLog.findFirst({
      where: { action: 'match_rate', success: false, resource: `match:${m.slug}` },
    });
    expect(refused).toMatchObject({ category: 'match', userId: alice.user.id, metadata: { reason: 'duplicate' } });
  });

  it('refuses a pending match with 400', async () => {
    const { event, alice, bob } = await createTrio();
    const m = await insertMatch(event, alice.user, bob.user);
    const res = await request.post(`/api/matches/${m.slug}/ratings`).set('Authorization', bob.auth).send({ score: 4 });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('Only accepted matches can be rated');
    expect(await prisma.rating.count({ where: { matchId: m.id } })).toBe(0);
  });

  it('validates score, comment and wouldCollaborateAgain', async () => {
    const { event, alice, bob } = await createTrio();
    const m = await insertMatch(event, alice.user, bob.user, 'accepted');
    const bad: [Record<string, unknown>, string][] = [
      [{}, 'score'],
      [{ score: 0 }, 'score'],
      [{ score: 6 }, 'score'],
      [{ score: 3.5 }, 'score'],
      [{ score: '4' }, 'score'],
      [{ score: 4, comment: 'x'.repeat(501) }, 'comment'],
      [{ score: 4, comment: 12 }, 'comment'],
      [{ score: 4, wouldCollaborateAgain: 'yes' }, 'wouldCollaborateAgain'],
    ];
    for (const [body, field] of bad) {
      const res = await request.post(`/api/matches/${m.slug}/ratings`).set('Authorization', alice.auth).send(body);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('Validation failed');
      expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
    }
    const ok = await request
      .post(`/api/matches/${m.slug}/ratings`)
      .set('Authorization', alice.auth)
      .send({ score: 1, comment: 'x'.repeat(500), wouldCollaborateAgain: false });
    expect(ok.status).toBe(201);
    expect(await prisma.rating.count({ where: { matchId: m.id } })).toBe(1);
  });

  it('requires a verified e-mail', async () => {
    const { event, alice } = await createTrio();
    const dave = await createUser({ emailVerified: false });
    await joinEvent(dave.user, event);
    const m = await insertMatch(event, alice.user, dave.user, 'accepted');
    const res = await request.post(`/api/matches/${m.slug}/ratings`).set('Authorization', dave.auth).send({ score: 4 });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('Email verification required');
  });
});

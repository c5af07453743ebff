import { prisma } from '../helpers/db';
import { createEvent, createUser, joinEvent } from '../helpers/factories';
import { createTrio, insertMatch } from '../helpers/matches';
import { api } from '../helpers/server';

const request = api();

describe('match state machine under simultaneous requests', () => {
  it('20 identical simultaneous creates make exactly one match; the others get 409', async () => {
    const { event, alice, bob } = await createTrio();
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        request
          .post('/api/matches')
          .set('Authorization', alice.auth)
          .send({ targetUserId: bob.user.id, eventSlug: event.slug }),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(19);
    for (const r of results.filter((x) => x.status === 409)) expect(r.body.error).toBe('Match already exists');
    expect(await prisma.match.count({ where: { eventId: event.id } })).toBe(1);
  });

  it('simultaneous creates in both directions make exactly one match', async () => {
    const { event, alice, bob } = await createTrio();
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        i % 2
          ? request
              .post('/api/matches')
              .set('Authorization', alice.auth)
              .send({ targetUserId: bob.user.id, eventSlug: event.slug })
          : request
              .post('/api/matches')
              .set('Authorization', bob.auth)
              .send({ targetUserId: alice.user.id, eventSlug: event.slug }),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(9);
    expect(await prisma.match.count({ where: { eventId: event.id } })).toBe(1);
  });

  it('the pending limit holds under parallel requests to different targets', async () => {
    const event = await createEvent();
    const alice = await createUser();
    await joinEvent(alice.user, event);
    const targets = [];
    for (let i = 0; i < 24; i++) {
      const t = await createUser();
      await joinEvent(t.user, event);
      targets.push(t);
    }
    for (const t of targets.slice(0, 16)) await insertMatch(event, alice.user, t.user);
    const results = await Promise.all(
      targets
        .slice(16)
        .map((t) =>
          request
            .post('/api/matches')
            .set('Authorization', alice.auth)
            .send({ targetUserId: t.user.id, eventSlug: event.slug }),
        ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(4);
    expect(results.filter((r) => r.status === 429)).toHaveLength(4);
    expect(await prisma.match.count({ where: { user1Id: alice.user.id, status: 'pending' } })).toBe(20);
  });

  it('of simultaneous accepts exactly one succeeds and one private room exists', async () => {
    const { event, alice, bob } = await createTrio();
    const m = await insertMatch(event, alice.user, bob.user);
    const results = await Promise.all(
      Array.from({ length: 8 }, () => request.put(`/api/matches/${m.slug}/accept`).set('Authorization', bob.auth)),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 400)).toHaveLength(7);
    expect(await prisma.chatRoom.count({ where: { matchId: m.id } })).toBe(1);
    expect(await prisma.activityLog.count({ where: { action: 'match_accept', resource: `match:${m.slug}` } })).toBe(1);
  });

  it('both members rating at the same moment complete the match exactly once', async () => {
    for (let round = 0; round < 5; round++) {
      const { event, alice, bob } = await createTrio();
      const m = await insertMatch(event, alice.user, bob.user, 'accepted');
      const [a, b] = await Promise.all([
        request.post(`/api/matches/${m.slug}/ratings`).set('Authorization', alice.auth).send({ score: 5 }),
        request.post(`/api/matches/${m.slug}/ratings`).set('Authorization', bob.auth).send({ score: 4 }),
      ]);
      expect([a.status, b.status]).toEqual([201, 201]);
      expect((await prisma.match.findUniqueOrThrow({ where: { id: m.id } })).status).toBe('completed');
      expect(await prisma.activityLog.count({ where: { action: 'match_complete', resource: `match:${m.slug}` } })).toBe(
        1,
      );
    }
  });

  it('the same rater rating twice at the same moment stores one rating (the other 409)', async () => {
    const { event, alice, bob } = await createTrio();
    const m = await insertMatch(event, alice.user, bob.user, 'accepted');
    const results = await Promise.all(
      Array.from({ length: 6 }, () =>
        request.post(`/api/matches/${m.slug}/ratings`).set('Authorization', alice.auth).send({ score: 3 }),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(5);
    expect(await prisma.rating.count({ where: { matchId: m.id } })).toBe(1);
    expect((await prisma.match.findUniqueOrThrow({ where: { id: m.id } })).status).toBe('accepted');
  });

  it('accept racing with delete leaves either an accepted match with a room or nothing', async () => {
    const { event, alice, bob } = await createTrio();
    const m = await insertMatch(event, alice.user, bob.user);
    const [acc, del] = await Promise.all([
      request.put(`/api/matches/${m.slug}/accept`).set('Authorization', bob.auth),
      request.delete(`/api/matches/${m.slug}`).set('Authorization', alice.auth),
    ]);
    expect(del.status).toBe(200);
    expect([200, 400, 404]).toContain(acc.status);
    expect(await prisma.match.count({ where: { id: m.id } })).toBe(0);
    expect(await prisma.chatRoom.count({ where: { matchId: m.id } })).toBe(0);
  });
});

import { prisma } from '../helpers/db';
import { competitionTypeId, createEvent, createUser, divisionId, joinEvent } from '../helpers/factories';
import { insertMatch } from '../helpers/matches';
import { api } from '../helpers/server';

const request = api();

describe('GET /dashboard', () => {
  it('requires a token', async () => {
    expect((await request.get('/api/dashboard')).status).toBe(401);
  });

  it('lists joined events with heats, suggestion and active-match counts, and incoming pending requests', async () => {
    const me = await createUser();
    const bob = await createUser();
    const carol = await createUser();
    const e1 = await createEvent();
    const e2 = await createEvent();
    const notJoined = await createEvent();
    await joinEvent(me.user, e1, { joinedAt: new Date(Date.now() - 60_000) });
    await joinEvent(me.user, e2);
    for (const u of [bob, carol]) {
      await joinEvent(u.user, e1);
      await joinEvent(u.user, e2);
      await joinEvent(u.user, notJoined);
    }
    const nov = await divisionId('NOV');
    const jj = await competitionTypeId('J&J');
    const str = await competitionTypeId('STR');
    const myHeat = await prisma.heat.create({
      data: {
        userId: me.user.id,
        eventId: e1.id,
        divisionId: nov,
        competitionTypeId: jj,
        heatNumber: 1,
        role: 'Leader',
      },
    });
    await prisma.heat.create({
      data: {
        userId: me.user.id,
        eventId: e1.id,
        divisionId: nov,
        competitionTypeId: str,
        heatNumber: 2,
        role: 'Leader',
      },
    });
    const bobHeat = await prisma.heat.create({
      data: {
        userId: bob.user.id,
        eventId: e1.id,
        divisionId: nov,
        competitionTypeId: jj,
        heatNumber: 3,
        role: 'Follower',
      },
    });
    const run = await prisma.matchingRun.create({ data: { eventId: e1.id, trigger: 'manual', status: 'success' } });
    await prisma.recordingSuggestion.createMany({
      data: [
        {
          eventId: e1.id,
          heatId: myHeat.id,
          dancerId: me.user.id,
          recorderId: bob.user.id,
          status: 'pending',
          originRunId: run.id,
        },
        {
          eventId: e1.id,
          heatId: myHeat.id,
          dancerId: me.user.id,
          recorderId: carol.user.id,
          status: 'rejected',
          originRunId: run.id,
        },
        {
          eventId: e1.id,
          heatId: bobHeat.id,
          dancerId: bob.user.id,
          recorderId: me.user.id,
          status: 'accepted',
          originRunId: run.id,
        },
      ],
    });
    await insertMatch(e1, me.user, bob.user, 'accepted');
    await insertMatch(e1, me.user, carol.user, 'completed');
    const incoming = await insertMatch(e2, carol.user, me.user);
    await insertMatch(e2, me.user, bob.user); // outgoing: not listed
    await insertMatch(notJoined, bob.user, carol.user, 'accepted'); // not mine

    const res = await request.get('/api/dashboard').set('Authorization', me.auth);
    expect(res.status).toBe(200);
    const { events, incomingRequests } = res.body.data;
    expect(events.map((e: { slug: string }) => e.slug)).toEqual([e2.slug, e1.slug]);
    expect(events[1]).toMatchObject({
      id: e1.id,
      name: e1.name,
      heatsCount: 2,
      recordingSuggestions: { toBeRecorded: 1, toRecord: 1 },
      activeMatches: 1,
    });
    expect(events[1].joinedAt).toBeDefined();
    expect(events[0]).toMatchObject({
      id: e2.id,
      heatsCount: 0,
      recordingSuggestions: { toBeRecorded: 0, toRecord: 0 },
      activeMatches: 0,
    });
    expect(incomingRequests).toHaveLength(1);
    expect(incomingRequests[0]).toMatchObject({
      slug: incoming.slug,
      status: 'pending',
      isInitiator: false,
      partner: { id: carol.user.id },
      event: { slug: e2.slug },
    });
  });

  it('answers empty lists for a new user', async () => {
    const me = await createUser();
    const res = await request.get('/api/dashboard').set('Authorization', me.auth);
    expect(res.body).toEqual({ success: true, data: { events: [], incomingRequests: [] } });
  });
});

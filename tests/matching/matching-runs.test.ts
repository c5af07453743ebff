import { Client } from 'pg';
import { testContainer } from '../helpers/container';
import { prisma } from '../helpers/db';
import { MATCHING_LOCK_CLASS } from '../../src/modules/matching/matching.lock';
import { matchingSchedulerTick } from '../../src/modules/matching/matching.scheduler';
import { createUser, createEvent, joinEvent } from '../helpers/factories';
import { decide, heat, mySuggestions, person, recorderOf, runMatching, scenario } from '../helpers/matching';
import { childEnv, runTs } from '../helpers/process';
import { api, startTestServer } from '../helpers/server';
import { connectSocket, nextEvent } from '../helpers/socket';

const WARSAW = { city: 'Warsaw', country: 'Poland' };
const BERLIN = { city: 'Berlin', country: 'Germany' };

/** A small event: dancer (Warsaw) with one heat, a Warsaw recorder and a Berlin one. */
async function smallEvent(overrides: Parameters<typeof scenario>[0] = {}) {
  const { event, admin } = await scenario(overrides);
  const dancer = await person(event, WARSAW);
  const recorder = await person(event, WARSAW);
  const other = await person(event, BERLIN);
  const h = await heat(dancer, event, { n: 1 });
  return { event, admin, dancer, recorder, other, h };
}

describe('matching runs', () => {
  it('POST /events/:slug/run-matching answers 201 with the finished run, records it and logs it', async () => {
    const { event, admin, h, recorder } = await smallEvent();
    const res = await api().post(`/api/events/${event.slug}/run-matching`).set('Authorization', admin.auth);
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      eventId: event.id,
      trigger: 'manual',
      status: 'success',
      startedAt: expect.any(String),
      finishedAt: expect.any(String),
      heatsTotal: 1,
      heatsAssigned: 1,
      heatsUnassigned: 0,
      error: null,
      reuse: { previous: 0, kept: 0, added: 1, dropped: 0, invalid: 0 },
      unfilledByReason: {
        NO_OTHER_PARTICIPANT: 0,
        ALL_CANDIDATES_DANCING: 0,
        SLOT_CONFLICT: 0,
        ALL_CANDIDATES_REJECTED: 0,
        ONLY_OPTED_OUT_AT_CAP: 0,
        ALL_CANDIDATES_AT_CAP: 0,
        ALL_CANDIDATES_UNAVAILABLE: 0,
      },
    });
    const stored = await prisma.matchingRun.findUniqueOrThrow({ where: { id: res.body.data.id } });
    expect(stored.triggeredById).toBe(admin.user.id);
    const suggestion = await prisma.recordingSuggestion.findFirstOrThrow({ where: { heatId: h.id } });
    expect(suggestion).toMatchObject({ originRunId: stored.id, status: 'pending', recorderId: recorder.user.id });
    const ev = await prisma.event.findUniqueOrThrow({ where: { id: event.id } });
    expect(ev.matchingRunAt?.toISOString()).toBe(stored.finishedAt?.toISOString());
    const log = await prisma.activityLog.findFirst({
      where: { category: 'admin', action: 'matching_run', resource: `event:${event.slug}` },
    });
    expect(log).toMatchObject({ userId: admin.user.id, success: true });
    expect(log?.metadata).toMatchObject({ runId: stored.id, trigger: 'manual' });
  });

  it('the admin run-now and runs-listing endpoints: runs newest first', async () => {
    const { event, admin } = await smallEvent();
    const first = await api().post(`/api/admin/events/${event.slug}/matching-runs`).set('Authorization', admin.auth);
    expect(first.status).toBe(201);
    const second = await runMatching(event, admin);
    const list = await api().get(`/api/admin/events/${event.slug}/matching-runs`).set('Authorization', admin.auth);
    expect(list.status).toBe(200);
    expect(list.body.count).toBe(2);
    expect(list.body.data.map((r: { id: string }) => r.id)).toEqual([second.id, first.body.data.id]);
    // the second run kept the first run's pending suggestion: it stays with the run that created it
    const firstPairs = await api()
      .get(`/api/admin/events/${event.slug}/matching-runs/${first.body.data.id}/suggestions`)
      .set('Authorization', admin.auth);
    expect(firstPairs.status).toBe(200);
    expect(firstPairs.body.data).toHaveLength(1);
    expect(list.body.data[0].reuse).toEqual({ previous: 1, kept: 1, added: 0, dropped: 0, invalid: 0 });
    const secondPairs = await api()
      .get(`/api/admin/events/${event.slug}/matching-runs/${second.id}/suggestions`)
      .set('Authorization', admin.auth);
    expect(secondPairs.body.data).toEqual([]);
  });

  it('re-running keeps accepted suggestions, never re-proposes a rejected pair and replaces the rest', async () => {
    const { event, admin } = await scenario();
    const a = await person(event, WARSAW);
    const b = await person(event, WARSAW);
    const c = await person(event, BERLIN);
    const ha = await heat(a, event, { n: 1 });
    const hb = await heat(b, event, { n: 3 });
    const first = await runMatching(event, admin);
    expect(await recorderOf(ha.id)).toBe(b.user.id);
    expect(await recorderOf(hb.id)).toBe(a.user.id);
    const sa = await prisma.recordingSuggestion.findFirstOrThrow({ where: { heatId: ha.id } });
    const sb = await prisma.recordingSuggestion.findFirstOrThrow({ where: { heatId: hb.id } });
    expect((await decide(event, b, sa.id, 'accepted')).status).toBe(200);
    expect((await decide(event, a, sb.id, 'rejected')).status).toBe(200);

    const second = await runMatching(event, admin);
    expect(second).toMatchObject({ heatsTotal: 1, heatsAssigned: 1 });
    const rows = await prisma.recordingSuggestion.findMany({ where: { eventId: event.id }, orderBy: { id: 'asc' } });
    expect(rows.map((r) => [r.heatId, r.recorderId, r.status, r.originRunId])).toEqual([
      [ha.id, b.user.id, 'accepted', first.id],
      [hb.id, a.user.id, 'rejected', first.id],
      [hb.id, c.user.id, 'pending', second.id],
    ]);
    // a third run on unchanged input keeps the pending row as it is (same id, same origin run)
    const pendingBefore = await prisma.recordingSuggestion.findFirstOrThrow({
      where: { heatId: hb.id, status: 'pending' },
    });
    const third = await runMatching(event, admin);
    expect(await prisma.recordingSuggestion.count({ where: { eventId: event.id } })).toBe(3);
    expect(await prisma.recordingSuggestion.findFirst({ where: { heatId: hb.id, status: 'pending' } })).toEqual(
      pendingBefore,
    );
    expect(pendingBefore.originRunId).toBe(second.id);
    expect(third.heatsAssigned).toBe(1);
  });

  it('a re-run on unchanged input writes no kept suggestion again (same row version)', async () => {
    const { event, admin, h } = await smallEvent();
    await runMatching(event, admin);
    const version = async () =>
      (
        await prisma.$queryRaw<{ xmin: string }[]>`
          SELECT xmin::text AS xmin FROM "RecordingSuggestion" WHERE "heatId" = ${h.id} AND status = 'pending'`
      )[0]?.xmin;
    const before = await version();
    expect(before).toEqual(expect.any(String));
    const again = await runMatching(event, admin);
    expect(again.reuse).toEqual({ previous: 1, kept: 1, added: 0, dropped: 0, invalid: 0 });
    expect(await version()).toBe(before);
  });

  it("a kept suggestion's why follows its recorder's new city", async () => {
    const { event, admin, h, recorder } = await smallEvent();
    await runMatching(event, admin);
    const why = async () =>
      (await prisma.recordingSuggestion.findFirstOrThrow({ where: { heatId: h.id, status: 'pending' } })).why;
    expect(await why()).toEqual({ locality: 'city', optOut: false, recorderBalance: 0, pinned: false });
    await prisma.user.update({ where: { id: recorder.user.id }, data: { city: 'Krakow' } });
    const again = await runMatching(event, admin);
    expect(again.reuse).toMatchObject({ kept: 1, added: 0 });
    expect(await recorderOf(h.id)).toBe(recorder.user.id);
    expect(await why()).toEqual({ locality: 'country', optOut: false, recorderBalance: 0, pinned: false });
  });

  it('sends recording_suggestions_created with per-user counts to each affected user', async () => {
    const server = await startTestServer();
    const { event, admin, dancer, recorder, other } = await smallEvent();
    const sockets = await Promise.all([dancer, recorder, other].map((u) => connectSocket(server.url, u.token)));
    try {
      const [toDancer, toRecorder] = [
        nextEvent(sockets[0], 'recording_suggestions_created'),
        nextEvent(sockets[1], 'recording_suggestions_created'),
      ];
      const otherGotOne = new Promise<boolean>((resolve) => {
        sockets[2].once('recording_suggestions_created', () => resolve(true));
        setTimeout(() => resolve(false), 1000);
      });
      const res = await server.request.post(`/api/events/${event.slug}/run-matching`).set('Authorization', admin.auth);
      expect(res.status).toBe(201);
      expect(await toDancer).toEqual({ eventSlug: event.slug, runId: res.body.data.id, toBeRecorded: 1, toRecord: 0 });
      expect(await toRecorder).toEqual({
        eventSlug: event.slug,
        runId: res.body.data.id,
        toBeRecorded: 0,
        toRecord: 1,
      });
      expect(await otherGotOne).toBe(false);
    } finally {
      sockets.forEach((s) => s.close());
      await server.close();
    }
  });

  it('runs of one event never overlap: while the lock is held, a run answers 409 and records nothing', async () => {
    const { event, admin } = await smallEvent();
    const holder = new Client({ connectionString: process.env.DATABASE_URL });
    await holder.connect();
    try {
      await holder.query('SELECT pg_advisory_lock($1, $2)', [MATCHING_LOCK_CLASS, event.id]);
      const res = await api().post(`/api/events/${event.slug}/run-matching`).set('Authorization', admin.auth);
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({
        success: false,
        error: 'A matching run is already in progress for this event',
        code: 'MATCHING_RUN_IN_PROGRESS',
      });
      expect(await prisma.matchingRun.count({ where: { eventId: event.id } })).toBe(0);
    } finally {
      await holder.end();
    }
    expect((await api().post(`/api/events/${event.slug}/run-matching`).set('Authorization', admin.auth)).status).toBe(
      201,
    );
  });

  it('two concurrent runs: each answers 201 or 409, at least one succeeds, and the suggestions stay consistent', async () => {
    const { event, admin } = await scenario();
    const people = [];
    for (let i = 0; i < 12; i++) people.push(await person(event, i % 2 ? WARSAW : BERLIN));
    for (const [i, p] of people.entries()) await heat(p, event, { n: (i % 4) + 1 });
    const responses = await Promise.all(
      [1, 2].map(() => api().post(`/api/events/${event.slug}/run-matching`).set('Authorization', admin.auth)),
    );
    const statuses = responses.map((r) => r.status).sort();
    expect([
      [201, 201],
      [201, 409],
    ]).toContainEqual(statuses);
    const runs = await prisma.matchingRun.findMany({ where: { eventId: event.id }, orderBy: { startedAt: 'asc' } });
    expect(runs.every((r) => r.status === 'success')).toBe(true);
    if (runs.length === 2) expect(runs[1].startedAt.getTime()).toBeGreaterThanOrEqual(runs[0].finishedAt!.getTime());
    // exactly one live suggestion per heat, all from the last run
    const live = await prisma.recordingSuggestion.findMany({ where: { eventId: event.id } });
    expect(live).toHaveLength(12);
    expect(new Set(live.map((s) => s.heatId)).size).toBe(12);
    expect(new Set(live.map((s) => s.originRunId))).toEqual(new Set([runs[runs.length - 1].id]));
  });

  it('a run that fails is kept as failed with its error, and the earlier suggestions stay untouched', async () => {
    const { event, admin, h, recorder, other } = await smallEvent();
    const good = await runMatching(event, admin);
    await heat(other, event, { n: 5 }); // the next run has a new pair to insert
    const before = await prisma.event.findUniqueOrThrow({ where: { id: event.id } });
    // make the next insert of this event's suggestions fail inside the run's transaction
    const fn = `matching_test_fail_${event.id}`;
    await prisma.$executeRawUnsafe(
      `CREATE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'simulated write failure'; END $$`,
    );
    await prisma.$executeRawUnsafe(
      `CREATE TRIGGER ${fn} BEFORE INSERT ON "RecordingSuggestion" FOR EACH ROW WHEN (NEW."eventId" = ${event.id}) EXECUTE FUNCTION ${fn}()`,
    );
    try {
      const res = await api().post(`/api/events/${event.slug}/run-matching`).set('Authorization', admin.auth);
      expect(res.status).toBe(201);
      expect(res.body.data).toMatchObject({
        status: 'failed',
        finishedAt: expect.any(String),
        error: expect.stringContaining('simulated write failure'),
      });
    } finally {
      await prisma.$executeRawUnsafe(`DROP TRIGGER ${fn} ON "RecordingSuggestion"`);
      await prisma.$executeRawUnsafe(`DROP FUNCTION ${fn}()`);
    }
    expect(
      await prisma.recordingSuggestion.findMany({
        where: { eventId: event.id },
        select: { heatId: true, recorderId: true, originRunId: true, status: true },
      }),
    ).toEqual([{ heatId: h.id, recorderId: recorder.user.id, originRunId: good.id, status: 'pending' }]);
    const after = await prisma.event.findUniqueOrThrow({ where: { id: event.id } });
    expect(after.matchingRunAt?.toISOString()).toBe(before.matchingRunAt?.toISOString());
    const log = await prisma.activityLog.findFirst({
      where: { action: 'matching_run_failed', resource: `event:${event.slug}` },
    });
    expect(log).toMatchObject({ category: 'admin', success: false, userId: admin.user.id });
  });

  it('a run left "running" by a crashed process is closed as failed by the next run of the event', async () => {
    const { event, admin } = await smallEvent();
    const stale = await prisma.matchingRun.create({
      data: { eventId: event.id, trigger: 'manual', status: 'running' },
    });
    await runMatching(event, admin);
    expect(await prisma.matchingRun.findUniqueOrThrow({ where: { id: stale.id } })).toMatchObject({
      status: 'failed',
      error: expect.stringContaining('Interrupted'),
    });
  });

  it('npm run cli -- matching:run <slug> runs matching and prints the run', async () => {
    const { event } = await smallEvent();
    const result = await runTs('src/cli.ts', ['matching:run', event.slug], childEnv());
    expect(result.code).toBe(0);
    const run = await prisma.matchingRun.findFirstOrThrow({ where: { eventId: event.id } });
    expect(run).toMatchObject({ trigger: 'manual', status: 'success', triggeredById: null, heatsAssigned: 1 });
    expect(result.stdout).toContain(run.id);
  });
});

describe('scheduled matching', () => {
  const past = (ms: number) => new Date(Date.now() - ms);

  it('runs an event once after its registration deadline, even with two concurrent ticks', async () => {
    const { event, h } = await smallEvent({ registrationDeadline: past(60_000) });
    const [a, b] = await Promise.all([matchingSchedulerTick(testContainer()), matchingSchedulerTick(testContainer())]);
    const mine = [...a, ...b].filter((r) => r.eventId === event.id);
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ trigger: 'scheduled', status: 'success', heatsAssigned: 1 });
    expect(await prisma.matchingRun.count({ where: { eventId: event.id } })).toBe(1);
    expect(await recorderOf(h.id)).toEqual(expect.any(Number));
    // later ticks leave it alone
    const again = await matchingSchedulerTick(testContainer());
    expect(again.filter((r) => r.eventId === event.id)).toEqual([]);
    expect(await prisma.matchingRun.count({ where: { eventId: event.id } })).toBe(1);
    const log = await prisma.activityLog.findFirst({
      where: { action: 'matching_run', resource: `event:${event.slug}` },
    });
    expect(log).toMatchObject({ category: 'admin', userId: null });
    expect(log?.metadata).toMatchObject({ trigger: 'scheduled' });
  });

  it('does not run before the deadline; runs again when the deadline moved past the last run', async () => {
    const future = await createEvent({ registrationDeadline: new Date(Date.now() + 3_600_000) });
    const ranBefore = await createEvent({ registrationDeadline: past(60_000) });
    await prisma.event.update({ where: { id: ranBefore.id }, data: { matchingRunAt: past(120_000) } });
    const ranAfter = await createEvent({ registrationDeadline: past(60_000) });
    await prisma.event.update({ where: { id: ranAfter.id }, data: { matchingRunAt: past(30_000) } });
    const runs = await matchingSchedulerTick(testContainer());
    const ids = runs.map((r) => r.eventId);
    expect(ids).toContain(ranBefore.id);
    expect(ids).not.toContain(future.id);
    expect(ids).not.toContain(ranAfter.id);
    expect(await prisma.matchingRun.count({ where: { eventId: { in: [future.id, ranAfter.id] } } })).toBe(0);
  });

  it('waits 5 minutes after a failed scheduled run before trying the event again', async () => {
    const event = await createEvent({ registrationDeadline: past(60_000) });
    await prisma.matchingRun.create({
      data: { eventId: event.id, trigger: 'scheduled', status: 'failed', finishedAt: new Date(), error: 'boom' },
    });
    expect((await matchingSchedulerTick(testContainer())).filter((r) => r.eventId === event.id)).toEqual([]);
    const later = await matchingSchedulerTick(testContainer(), () => new Date(Date.now() + 6 * 60_000));
    expect(later.filter((r) => r.eventId === event.id)).toHaveLength(1);
  });
});

describe('permissions and errors', () => {
  it('run-matching needs a token and an admin; unknown event 404', async () => {
    const { event, dancer, admin } = await smallEvent();
    expect((await api().post(`/api/events/${event.slug}/run-matching`)).status).toBe(401);
    const notAdmin = await api().post(`/api/events/${event.slug}/run-matching`).set('Authorization', dancer.auth);
    expect(notAdmin.status).toBe(403);
    expect(notAdmin.body.error).toBe('Admin access required');
    for (const path of ['/api/admin/events/%s/matching-runs']) {
      const p = path.replace('%s', event.slug);
      expect((await api().get(p).set('Authorization', dancer.auth)).status).toBe(403);
      expect((await api().post(p).set('Authorization', dancer.auth)).status).toBe(403);
    }
    const missing = await api().post('/api/events/NoSuchEvent123/run-matching').set('Authorization', admin.auth);
    expect(missing.status).toBe(404);
    expect(missing.body.error).toBe('Event not found');
    expect(await prisma.matchingRun.count({ where: { eventId: event.id } })).toBe(0);
  });

  it('match-suggestions is for participants only', async () => {
    const { event } = await smallEvent();
    const outsider = await createUser();
    const res = await api().get(`/api/events/${event.slug}/match-suggestions`).set('Authorization', outsider.auth);
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('You must be a participant of this event');
    expect(
      (await api().get('/api/events/NoSuchEvent123/match-suggestions').set('Authorization', outsider.auth)).status,
    ).toBe(404);
  });

  it('run suggestions: unknown, malformed or other-event run ids are 404 "Matching run not found"', async () => {
    const { event, admin } = await smallEvent();
    const other = await smallEvent();
    const otherRun = await runMatching(other.event, other.admin);
    for (const runId of ['not-a-uuid', '00000000-0000-4000-8000-000000000000', otherRun.id]) {
      const res = await api()
        .get(`/api/admin/events/${event.slug}/matching-runs/${runId}/suggestions`)
        .set('Authorization', admin.auth);
      expect(res.status).toBe(404);
      expect(res.body.error).toBe('Matching run not found');
    }
  });

  it('only the recorder answers a suggestion; unknown or other-event ids 404; bad status 400', async () => {
    const { event, admin, dancer, recorder, other, h } = await smallEvent();
    await runMatching(event, admin);
    const s = await prisma.recordingSuggestion.findFirstOrThrow({ where: { heatId: h.id } });
    for (const u of [dancer, other]) {
      const res = await decide(event, u, s.id, 'accepted');
      expect(res.status).toBe(403);
      expect(res.body.error).toBe('Only the recorder can accept or reject this suggestion');
    }
    const outsider = await decide(event, admin, s.id, 'accepted');
    expect(outsider.status).toBe(403);
    expect(outsider.body.error).toBe('You must be a participant of this event');
    const bad = await decide(event, recorder, s.id, 'maybe');
    expect(bad.status).toBe(400);
    expect(bad.body.details[0].field).toBe('status');
    expect((await decide(event, recorder, 999_999_999, 'accepted')).status).toBe(404);
    expect((await decide(event, recorder, 'abc' as unknown as number, 'accepted')).status).toBe(404);
    const elsewhere = await smallEvent();
    await joinEvent(recorder.user, elsewhere.event);
    expect((await decide(elsewhere.event, recorder, s.id, 'accepted')).status).toBe(404);
    expect((await prisma.recordingSuggestion.findUniqueOrThrow({ where: { id: s.id } })).status).toBe('pending');
  });

  it('transitions: only from pending; repeating the same answer is a no-op; the other answer is 409', async () => {
    const { event, admin, recorder, h } = await smallEvent();
    await runMatching(event, admin);
    const s = await prisma.recordingSuggestion.findFirstOrThrow({ where: { heatId: h.id } });
    expect((await decide(event, recorder, s.id, 'rejected')).status).toBe(200);
    expect((await decide(event, recorder, s.id, 'rejected')).status).toBe(200);
    const change = await decide(event, recorder, s.id, 'accepted');
    expect(change.status).toBe(409);
    expect(change.body.error).toBe('Only a pending suggestion can be accepted or rejected');
    expect(await prisma.match.count({ where: { eventId: event.id } })).toBe(0);
    const log = await prisma.activityLog.count({
      where: { category: 'match', action: 'recording_suggestion_reject', userId: recorder.user.id },
    });
    expect(log).toBe(1);
  });
});

describe('accepting a suggestion', () => {
  it('creates an accepted auto match with a private room, then reuses it for the next suggestion of the pair', async () => {
    const { event, admin } = await scenario();
    const dancer = await person(event, WARSAW);
    const recorder = await person(event, WARSAW);
    const h1 = await heat(dancer, event, { division: 'NOV', n: 1 });
    const h2 = await heat(dancer, event, { division: 'INT', n: 1 });
    await runMatching(event, admin);
    const [s1, s2] = await prisma.recordingSuggestion.findMany({
      where: { heatId: { in: [h1.id, h2.id] } },
      orderBy: { id: 'asc' },
    });
    expect([s1.recorderId, s2.recorderId]).toEqual([recorder.user.id, recorder.user.id]);

    const res = await decide(event, recorder, s1.id, 'accepted');
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id: s1.id,
      status: 'accepted',
      recorder: { id: recorder.user.id },
      dancer: { id: dancer.user.id },
    });
    const match = await prisma.match.findFirstOrThrow({ where: { eventId: event.id }, include: { chatRoom: true } });
    expect(match).toMatchObject({
      status: 'accepted',
      source: 'auto',
      suggestionId: s1.id,
      user1Id: dancer.user.id,
      user2Id: recorder.user.id,
    });
    expect(match.chatRoom).toMatchObject({ type: 'private', eventId: null, matchId: match.id });
    expect(res.body.data.match).toEqual({
      id: match.id,
      slug: match.slug,
      status: 'accepted',
      roomId: match.chatRoom!.id,
    });

    const again = await decide(event, recorder, s2.id, 'accepted');
    expect(again.status).toBe(200);
    expect(again.body.data.match.id).toBe(match.id);
    expect(await prisma.match.count({ where: { eventId: event.id } })).toBe(1);
    expect(await prisma.chatRoom.count({ where: { matchId: match.id } })).toBe(1);
    expect(
      await prisma.activityLog.count({
        where: { category: 'match', action: 'recording_suggestion_accept', userId: recorder.user.id },
      }),
    ).toBe(2);

    // the dancer reads it back
    const asDancer = await mySuggestions(event, dancer);
    expect(asDancer.toBeRecorded.map((s) => s.status)).toEqual(['accepted', 'accepted']);
  });

  it('keeps a completed match of the pair completed when a suggestion between them is accepted', async () => {
    const { event, admin } = await scenario();
    const dancer = await person(event, WARSAW);
    const recorder = await person(event, WARSAW);
    const h = await heat(dancer, event, { division: 'NOV', n: 1 });
    const done = await prisma.match.create({
      data: {
        slug: `done${Date.now()}`,
        eventId: event.id,
        user1Id: recorder.user.id,
        user2Id: dancer.user.id,
        status: 'completed',
      },
    });
    await runMatching(event, admin);
    const s = await prisma.recordingSuggestion.findFirstOrThrow({ where: { heatId: h.id } });
    expect(s.recorderId).toBe(recorder.user.id);

    const res = await decide(event, recorder, s.id, 'accepted');
    expect(res.status).toBe(200);
    expect(res.body.data.match).toMatchObject({ id: done.id, status: 'completed' });
    expect(await prisma.match.findUniqueOrThrow({ where: { id: done.id } })).toMatchObject({ status: 'completed' });
    expect(await prisma.match.count({ where: { eventId: event.id } })).toBe(1);
  });

  it('accepts a pending manual match between the two and gives it its room', async () => {
    const { event, admin, dancer, recorder, h } = await smallEvent();
    const pending = await prisma.match.create({
      data: {
        slug: `m${Date.now()}x`,
        eventId: event.id,
        user1Id: recorder.user.id,
        user2Id: dancer.user.id,
        status: 'pending',
        source: 'manual',
      },
    });
    await runMatching(event, admin);
    const s = await prisma.recordingSuggestion.findFirstOrThrow({ where: { heatId: h.id } });
    expect((await decide(event, recorder, s.id, 'accepted')).status).toBe(200);
    const after = await prisma.match.findUniqueOrThrow({ where: { id: pending.id }, include: { chatRoom: true } });
    expect(after.status).toBe('accepted');
    expect(after.respondedAt).not.toBeNull();
    expect(after.chatRoom).toMatchObject({ type: 'private', matchId: pending.id });
    expect(await prisma.match.count({ where: { eventId: event.id } })).toBe(1);
  });
});

import type { Event } from '../../src/generated/prisma/client';
import { prisma } from '../helpers/db';
import { createUser, joinEvent, type TestUser } from '../helpers/factories';
import { decide, heat, mySuggestions, person, runMatching, scenario } from '../helpers/matching';
import { api, useTestServer } from '../helpers/server';
import { connectSocket, nextEvent } from '../helpers/socket';

const WARSAW = { city: 'Warsaw', country: 'Poland' };
const KRAKOW = { city: 'Krakow', country: 'Poland' };
const BERLIN = { city: 'Berlin', country: 'Germany' };

const NO_REASONS = {
  NO_OTHER_PARTICIPANT: 0,
  ALL_CANDIDATES_DANCING: 0,
  SLOT_CONFLICT: 0,
  ALL_CANDIDATES_REJECTED: 0,
  ONLY_OPTED_OUT_AT_CAP: 0,
  ALL_CANDIDATES_AT_CAP: 0,
  ALL_CANDIDATES_UNAVAILABLE: 0,
};

const dryRun = (event: Event, admin: TestUser, body: unknown = { dryRun: true }) =>
  api()
    .post(`/api/admin/events/${event.slug}/matching-runs`)
    .set('Authorization', admin.auth)
    .send(body as object);

/** Row counts of every table a run writes, and the event's matchingRunAt. */
async function footprint(event: Event) {
  const [suggestions, runs, matches, rooms, ev] = await Promise.all([
    prisma.recordingSuggestion.findMany({ orderBy: { id: 'asc' } }),
    prisma.matchingRun.count(),
    prisma.match.count(),
    prisma.chatRoom.count(),
    prisma.event.findUniqueOrThrow({ where: { id: event.id } }),
  ]);
  return { suggestions, runs, matches, rooms, matchingRunAt: ev.matchingRunAt };
}

describe('stable re-runs', () => {
  it('a re-run keeps the still-valid pending suggestions with their ids and origin run, and adds rows only for new heats', async () => {
    const { event, admin } = await scenario();
    const a = await person(event, WARSAW);
    const b = await person(event, WARSAW);
    const ha = await heat(a, event, { n: 1 });
    const hb = await heat(b, event, { n: 3 });
    const first = await runMatching(event, admin);
    const before = await prisma.recordingSuggestion.findMany({ where: { eventId: event.id }, orderBy: { id: 'asc' } });
    expect(before.map((s) => s.heatId)).toEqual([ha.id, hb.id]);

    // a late registration: a Berlin dancer with a heat of her own
    const late = await person(event, BERLIN);
    const hl = await heat(late, event, { n: 5 });
    const second = await runMatching(event, admin);
    const after = await prisma.recordingSuggestion.findMany({ where: { eventId: event.id }, orderBy: { id: 'asc' } });
    expect(after.slice(0, 2)).toEqual(before);
    expect(after[2]).toMatchObject({ heatId: hl.id, status: 'pending', originRunId: second.id });
    const run = await prisma.matchingRun.findUniqueOrThrow({ where: { id: second.id } });
    expect(run.reuse).toEqual({ previous: 2, kept: 2, added: 1, dropped: 0, invalid: 0 });
    expect(first.id).not.toBe(second.id);
  });

  it('a pair that became impossible is replaced by a new row, and the run reports it as invalid', async () => {
    const { event, admin } = await scenario();
    const dancer = await person(event, WARSAW);
    const recorder = await person(event, WARSAW);
    const h = await heat(dancer, event, { n: 1 });
    await runMatching(event, admin);
    const old = await prisma.recordingSuggestion.findFirstOrThrow({ where: { heatId: h.id } });
    expect(old.recorderId).toBe(recorder.user.id);

    await heat(recorder, event, { n: 1 }); // the recorder now dances the same heat
    const backups = [await person(event, KRAKOW), await person(event, KRAKOW)];
    const second = await runMatching(event, admin);
    const now = await prisma.recordingSuggestion.findFirstOrThrow({ where: { heatId: h.id } });
    expect(now).toMatchObject({ status: 'pending', originRunId: second.id });
    expect(backups.map((b) => b.user.id)).toContain(now.recorderId);
    expect(now.id).not.toBe(old.id);
    expect(await prisma.recordingSuggestion.findUnique({ where: { id: old.id } })).toBeNull();
    const runs = await api().get(`/api/admin/events/${event.slug}/matching-runs`).set('Authorization', admin.auth);
    expect(runs.body.data[0].reuse).toMatchObject({ previous: 1, kept: 0, invalid: 1 });
  });
});

describe('unfilled heats and their reasons', () => {
  /** Two Warsaw dancers in the same heat and nobody else: neither heat can be filmed. */
  async function crowdedHeat() {
    const { event, admin } = await scenario();
    const a = await person(event, WARSAW);
    const b = await person(event, WARSAW);
    const ha = await heat(a, event, { division: 'ADV', n: 2 });
    const hb = await heat(b, event, { division: 'ADV', n: 2 });
    return { event, admin, a, b, ha, hb };
  }

  it('GET /events/:slug/match-suggestions gives the dancer the reason their heat has no recorder', async () => {
    const { event, admin, a, ha } = await crowdedHeat();
    await runMatching(event, admin);
    const mine = await mySuggestions(event, a);
    expect(mine.toBeRecorded).toHaveLength(1);
    expect(mine.toBeRecorded[0]).toMatchObject({
      heat: { id: ha.id },
      status: 'not_found',
      recorder: null,
      unfilledReason: 'ALL_CANDIDATES_DANCING',
    });
  });

  it('the admin run view counts the open heats per reason and lists them with heat and dancer', async () => {
    const { event, admin, a, b, ha, hb } = await crowdedHeat();
    const run = await runMatching(event, admin);
    const list = await api().get(`/api/admin/events/${event.slug}/matching-runs`).set('Authorization', admin.auth);
    expect(list.body.data[0].unfilledByReason).toEqual({ ...NO_REASONS, ALL_CANDIDATES_DANCING: 2 });

    const res = await api()
      .get(`/api/admin/events/${event.slug}/matching-runs/${run.id}`)
      .set('Authorization', admin.auth);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id: run.id,
      heatsUnassigned: 2,
      unfilledByReason: { ALL_CANDIDATES_DANCING: 2 },
    });
    expect(res.body.data.unfilledHeats).toEqual([
      expect.objectContaining({
        heatId: ha.id,
        reason: 'ALL_CANDIDATES_DANCING',
        heat: expect.objectContaining({ id: ha.id, heatNumber: 2 }),
        dancer: expect.objectContaining({ id: a.user.id }),
      }),
      expect.objectContaining({
        heatId: hb.id,
        reason: 'ALL_CANDIDATES_DANCING',
        dancer: expect.objectContaining({ id: b.user.id }),
      }),
    ]);
  });

  it('an older run keeps explaining its gaps after a later run filled them', async () => {
    const { event, admin, ha, hb } = await crowdedHeat();
    const first = await runMatching(event, admin);
    await person(event, KRAKOW);
    await person(event, KRAKOW);
    const second = await runMatching(event, admin);
    expect(second.heatsUnassigned).toBe(0);
    const old = await api()
      .get(`/api/admin/events/${event.slug}/matching-runs/${first.id}`)
      .set('Authorization', admin.auth);
    expect(old.body.data.unfilledHeats.map((u: { heatId: number }) => u.heatId)).toEqual([ha.id, hb.id]);
    const fresh = await api()
      .get(`/api/admin/events/${event.slug}/matching-runs/${second.id}`)
      .set('Authorization', admin.auth);
    expect(fresh.body.data).toMatchObject({ unfilledByReason: NO_REASONS, unfilledHeats: [] });
  });

  it('GET /admin/events/:slug/matching-runs/:runId answers 404 for an unknown or malformed run id', async () => {
    const { event, admin } = await crowdedHeat();
    for (const runId of ['nope', '00000000-0000-4000-8000-000000000000']) {
      const res = await api()
        .get(`/api/admin/events/${event.slug}/matching-runs/${runId}`)
        .set('Authorization', admin.auth);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('MATCHING_RUN_NOT_FOUND');
    }
  });
});

describe('dry run', () => {
  const server = useTestServer();

  it('answers kept, added, dropped and the open heats per reason, and writes nothing', async () => {
    const { event, admin } = await scenario();
    const dancer = await person(event, WARSAW);
    const far = await person(event, BERLIN);
    await heat(dancer, event, { n: 1 });
    await heat(far, event, { n: 1 }); // same heat: neither can film the other
    const lone = await person(event, BERLIN);
    await heat(lone, event, { n: 7 });
    // first run: the Berlin dancers film each other's heats and the Warsaw dancer's one (elsewhere)
    await runMatching(event, admin);
    // a Warsaw neighbour arrives: a same-city pair beats the kept one for the Warsaw dancer's heat
    await person(event, WARSAW);

    const before = await footprint(event);
    const logsBefore = await prisma.activityLog.count({ where: { resource: `event:${event.slug}` } });
    const res = await dryRun(event, admin);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      dryRun: true,
      heatsTotal: 3,
      heatsAssigned: 3,
      heatsUnassigned: 0,
      reuse: { previous: 3, kept: 2, added: 1, dropped: 1, invalid: 0 },
      unfilledByReason: NO_REASONS,
      unfilledHeats: [],
    });
    expect(await footprint(event)).toEqual(before);
    // the only activity-log entry is the dry run itself
    expect(await prisma.activityLog.count({ where: { resource: `event:${event.slug}` } })).toBe(logsBefore + 1);
    const log = await prisma.activityLog.findFirst({
      where: { action: 'matching_dry_run', resource: `event:${event.slug}` },
    });
    expect(log).toMatchObject({ category: 'admin', userId: admin.user.id, success: true });
    expect(log?.metadata).toMatchObject({ dryRun: true, heatsAssigned: 3 });
  });

  it('reports the heats a run would leave open, with their reason, and notifies nobody', async () => {
    const { event, admin } = await scenario();
    const a = await person(event, WARSAW);
    const b = await person(event, WARSAW);
    const ha = await heat(a, event, { n: 4 });
    await heat(b, event, { n: 4 });
    const socket = await connectSocket(server.url, a.token);
    try {
      const first = nextEvent<{ runId: string }>(socket, 'recording_suggestions_created');
      const before = await footprint(event);
      const res = await dryRun(event, admin);
      expect(res.body.data.unfilledByReason).toEqual({ ...NO_REASONS, ALL_CANDIDATES_DANCING: 2 });
      expect(res.body.data.unfilledHeats[0]).toMatchObject({
        heatId: ha.id,
        reason: 'ALL_CANDIDATES_DANCING',
        dancer: { id: a.user.id },
      });
      expect(await footprint(event)).toEqual(before);
      // the first notification the dancer gets is the one of the real run
      const real = await server.request
        .post(`/api/admin/events/${event.slug}/matching-runs`)
        .set('Authorization', admin.auth);
      expect(real.status).toBe(201);
      expect((await first).runId).toBe(real.body.data.id);
    } finally {
      socket.close();
    }
  });

  it('dryRun false runs for real; a dryRun that is not a boolean is 400', async () => {
    const { event, admin } = await scenario();
    const a = await person(event, WARSAW);
    await person(event, WARSAW);
    await heat(a, event, { n: 1 });
    const bad = await dryRun(event, admin, { dryRun: 'yes' });
    expect(bad.status).toBe(400);
    expect(bad.body.details[0].field).toBe('dryRun');
    expect(await prisma.matchingRun.count({ where: { eventId: event.id } })).toBe(0);
    const real = await dryRun(event, admin, { dryRun: false });
    expect(real.status).toBe(201);
    expect(real.body.data).toMatchObject({ status: 'success', heatsAssigned: 1 });
  });

  it('is for admins only', async () => {
    const { event } = await scenario();
    const dancer = await person(event, WARSAW);
    const res = await dryRun(event, dancer);
    expect(res.status).toBe(403);
  });
});

describe('CSV export', () => {
  async function named(
    event: Event,
    firstName: string,
    lastName: string,
    where: { city: string; country: string },
    optOut = false,
  ) {
    const u = await createUser({ firstName, lastName, ...where });
    await joinEvent(u.user, event, { recorderOptOut: optOut });
    return u;
  }

  const exportCsv = (event: Event, admin: TestUser, runId: string) =>
    api()
      .get(`/api/admin/events/${event.slug}/matching-runs/${runId}/export.csv`)
      .set('Authorization', admin.auth)
      .buffer(true)
      .parse((res, cb) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => cb(null, Buffer.concat(chunks).toString('utf8')));
      });

  it('streams RFC 4180 CSV with the plan: heat, dancer, recorder, status, locality, opt-out used', async () => {
    const { event, admin } = await scenario();
    const dancer = await named(event, 'Anna, "Ania"', 'Kowalska', WARSAW);
    const neighbour = await named(event, '=cmd', 'Nowak', WARSAW);
    const countryman = await named(event, 'Piotr', 'Zieliński', KRAKOW);
    const optedOut = await named(event, 'Hans', 'Müller', BERLIN, true);
    const h1 = await heat(dancer, event, { division: 'NOV', type: 'J&J', n: 1, role: 'Follower' });
    await heat(neighbour, event, { division: 'NOV', type: 'J&J', n: 1, role: 'Leader' });
    await heat(countryman, event, { division: 'NOV', type: 'J&J', n: 1 });
    const run = await runMatching(event, admin);
    const s1 = await prisma.recordingSuggestion.findFirstOrThrow({ where: { heatId: h1.id } });
    expect(s1.recorderId).toBe(optedOut.user.id); // everyone else dances heat 1
    expect((await decide(event, optedOut, s1.id, 'accepted')).status).toBe(200);

    const res = await exportCsv(event, admin, run.id);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe(`attachment; filename=matching-${event.slug}-${run.id}.csv`);
    const text = res.body as string;
    expect(text.startsWith('\ufeff')).toBe(true);
    const lines = text.slice(1).split('\r\n');
    expect(lines[lines.length - 1]).toBe('');
    // every field quoted (docs/security-hardening.md)
    expect(lines[0]).toBe('"Heat","Dancer","Recorder","Status","Locality","Opt-out used","Pinned","Recorder balance"');
    expect(lines.slice(1, -1)).toEqual([
      `"J&J NOV heat 1 (Follower)","Anna, ""Ania"" Kowalska (${dancer.user.username})","Hans Müller (${optedOut.user.username})","accepted","elsewhere","yes","no","0"`,
      `"J&J NOV heat 1 (Leader)","'=cmd Nowak (${neighbour.user.username})","Hans Müller (${optedOut.user.username})","pending","elsewhere","yes","no","0"`,
      `"J&J NOV heat 1","Piotr Zieliński (${countryman.user.username})","Hans Müller (${optedOut.user.username})","pending","elsewhere","yes","no","0"`,
    ]);
    const log = await prisma.activityLog.findFirst({
      where: { action: 'matching_run_export', resource: `event:${event.slug}` },
    });
    expect(log).toMatchObject({ category: 'admin', userId: admin.user.id });
  });

  it('gives the locality of each pair and leaves the recorder cells empty for an open heat', async () => {
    const { event, admin } = await scenario();
    const dancer = await named(event, 'Ola', 'A', WARSAW);
    const cityMate = await named(event, 'Ewa', 'B', WARSAW);
    const countryMate = await named(event, 'Jan', 'C', KRAKOW);
    await heat(dancer, event, { n: 1 });
    await heat(countryMate, event, { n: 3 });
    await heat(dancer, event, { n: 3, division: 'INT' });
    const alone = await named(event, 'Solo', 'D', BERLIN);
    await heat(alone, event, { n: 9, division: 'ADV' });
    await heat(dancer, event, { n: 9, division: 'ADV' });
    await heat(cityMate, event, { n: 9, division: 'ADV' });
    await heat(countryMate, event, { n: 9, division: 'ADV' });
    const run = await runMatching(event, admin);
    const text = (await exportCsv(event, admin, run.id)).body as string;
    const rows = text
      .slice(1)
      .trim()
      .split('\r\n')
      .slice(1)
      .map((l) => l.slice(1, -1).split('","'));
    const byHeatAndDancer = (label: string, name: string) => rows.find((r) => r[0] === label && r[1].startsWith(name))!;
    expect(byHeatAndDancer('J&J NOV heat 1', 'Ola')[4]).toBe('same city');
    expect(byHeatAndDancer('J&J NOV heat 3', 'Jan')[4]).toBe('same country');
    expect(byHeatAndDancer('J&J ADV heat 9', 'Solo')).toEqual([
      'J&J ADV heat 9',
      `Solo D (${alone.user.username})`,
      '',
      'not_found',
      '',
      '',
      '',
      '',
    ]);
  });

  it('only the latest successful run can be exported; unknown runs 404; admins only', async () => {
    const { event, admin } = await scenario();
    const a = await person(event, WARSAW);
    await person(event, WARSAW);
    await heat(a, event, { n: 1 });
    const first = await runMatching(event, admin);
    const second = await runMatching(event, admin);
    const old = await exportCsv(event, admin, first.id);
    expect(old.status).toBe(409);
    expect(old.headers['content-type']).toMatch(/application\/json/);
    expect(JSON.parse(old.body as string)).toMatchObject({ code: 'MATCHING_RUN_NOT_CURRENT' });
    expect((await exportCsv(event, admin, '00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await exportCsv(event, a, second.id)).status).toBe(403);
    expect((await exportCsv(event, admin, second.id)).status).toBe(200);
  });
});

describe('API reference', () => {
  it('documents the run view, the export and the dry run with their path parameters', async () => {
    const res = await api().get('/api/docs/openapi.json');
    const paths = res.body.paths as Record<
      string,
      Record<string, { parameters?: { name: string }[]; description?: string }>
    >;
    const names = (p: string, m: string) => paths[p]?.[m]?.parameters?.map((x) => x.name);
    expect(names('/admin/events/{slug}/matching-runs/{runId}', 'get')).toEqual(['slug', 'runId']);
    expect(names('/admin/events/{slug}/matching-runs/{runId}/export.csv', 'get')).toEqual(['slug', 'runId']);
    expect(names('/events/{slug}/match-suggestions/{id}/status', 'put')).toEqual(['slug', 'id']);
    expect(paths['/admin/events/{slug}/matching-runs'].post.description).toContain('dryRun');
  });
});

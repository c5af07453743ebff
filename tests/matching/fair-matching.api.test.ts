/**
 * Fair matching for people through the API: settings, preferences, fairness stats and
 * balances, the dancer's veto, pins and removals, no-shows, and the matching side of blocks
 * and suspensions (UserBlock rows and suspension columns are written directly here).
 */
import type { Event } from '../../src/generated/prisma/client';
import { prisma } from '../helpers/db';
import { competitionTypeId, createEvent, createUser, divisionId, joinEvent, type TestUser } from '../helpers/factories';
import { decide, heat, person, recorderOf, runMatching, scenario } from '../helpers/matching';
import { api } from '../helpers/server';

const WARSAW = { city: 'Warsaw', country: 'Poland' };
const BERLIN = { city: 'Berlin', country: 'Germany' };
const PARIS = { city: 'Paris', country: 'France' };

const settingsUrl = (e: Event) => `/api/events/${e.slug}/matching-settings`;
const prefsUrl = (e: Event) => `/api/events/${e.slug}/recording-preferences`;
const pinUrl = (e: Event) => `/api/admin/events/${e.slug}/match-suggestions`;
const absentUrl = (e: Event, userId: number) => `/api/admin/events/${e.slug}/participants/${userId}/absent`;
const audit = (action: string, e: Event) =>
  prisma.activityLog.findFirst({ where: { action, resource: `event:${e.slug}` }, orderBy: { id: 'desc' } });
const live = (heatId: number) =>
  prisma.recordingSuggestion.findFirst({ where: { heatId, status: { in: ['pending', 'accepted', 'not_found'] } } });

/** An accepted suggestion at another event: `recorder` recorded `dancer` there. */
async function pastRecording(dancer: TestUser, recorder: TestUser) {
  const other = await createEvent();
  await joinEvent(dancer.user, other);
  await joinEvent(recorder.user, other);
  const h = await heat(dancer, other, { n: 1 });
  const run = await prisma.matchingRun.create({ data: { eventId: other.id, trigger: 'manual', status: 'success' } });
  await prisma.recordingSuggestion.create({
    data: {
      eventId: other.id,
      heatId: h.id,
      dancerId: dancer.user.id,
      recorderId: recorder.user.id,
      status: 'accepted',
      originRunId: run.id,
    },
  });
}

describe('matching settings', () => {
  it('participants and admins read the defaults; others get 403', async () => {
    const { event, admin } = await scenario();
    const p = await person(event);
    const outsider = await createUser();
    const defaults = { bufferBefore: 0, bufferAfter: 1, maxRecordingsPerPerson: 3, optOutMode: 'last' };
    expect((await api().get(settingsUrl(event)).set('Authorization', p.auth)).body.data).toEqual(defaults);
    expect((await api().get(settingsUrl(event)).set('Authorization', admin.auth)).body.data).toEqual(defaults);
    expect((await api().get(settingsUrl(event)).set('Authorization', outsider.auth)).status).toBe(403);
    expect((await api().get('/api/events/nope123456789/matching-settings').set('Authorization', p.auth)).status).toBe(
      404,
    );
  });

  it('an admin changes some fields; the others keep their value; the change is audited with previous and new values', async () => {
    const { event, admin } = await scenario();
    const res = await api()
      .put(settingsUrl(event))
      .set('Authorization', admin.auth)
      .send({ bufferAfter: 2, optOutMode: 'exclude', other: 1 });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      bufferBefore: 0,
      bufferAfter: 2,
      maxRecordingsPerPerson: 3,
      optOutMode: 'exclude',
    });
    const log = await audit('matching_settings_update', event);
    expect(log?.category).toBe('admin');
    expect(log?.metadata).toMatchObject({
      previous: { bufferAfter: 1, optOutMode: 'last' },
      next: { bufferAfter: 2, optOutMode: 'exclude' },
    });
  });

  it('a wrong value, a numeric string or an empty body is 400 and nothing is saved; non-admins get 403 first', async () => {
    const { event, admin } = await scenario();
    const p = await person(event);
    for (const body of [
      { bufferBefore: 3 },
      { bufferAfter: '1' },
      { maxRecordingsPerPerson: 2.5 },
      { optOutMode: null },
      {},
      { bufferBefore: 1, maxRecordingsPerPerson: 9 },
    ]) {
      const res = await api().put(settingsUrl(event)).set('Authorization', admin.auth).send(body);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
      expect(res.body.details.length).toBeGreaterThan(0);
    }
    expect(await prisma.eventMatchingSettings.findUnique({ where: { eventId: event.id } })).toBeNull();
    expect((await api().put(settingsUrl(event)).set('Authorization', p.auth).send({ bufferBefore: 9 })).body.code).toBe(
      'ADMIN_REQUIRED',
    );
    expect(
      (
        await api()
          .put('/api/events/nope123456789/matching-settings')
          .set('Authorization', admin.auth)
          .send({ bufferBefore: 1 })
      ).status,
    ).toBe(404);
  });

  it('a run uses the buffers: bufferBefore 1 keeps a dancer from recording the heat right before his own', async () => {
    const { event, admin } = await scenario();
    const a = await person(event, WARSAW);
    const b = await person(event, WARSAW);
    await person(event, PARIS);
    const ha = await heat(a, event, { n: 2 });
    await heat(b, event, { n: 3 });
    await runMatching(event, admin);
    expect(await recorderOf(ha.id)).toBe(b.user.id);
    await api().put(settingsUrl(event)).set('Authorization', admin.auth).send({ bufferBefore: 1 });
    await runMatching(event, admin);
    expect(await recorderOf(ha.id)).not.toBe(b.user.id);
  });
});

describe('recording preferences', () => {
  it('a participant reads the defaults and saves a cap and unavailable entries, merged and sorted; audited', async () => {
    const { event } = await scenario();
    const p = await person(event);
    expect((await api().get(prefsUrl(event)).set('Authorization', p.auth)).body.data).toEqual({
      maxRecordings: null,
      unavailable: [],
    });
    const jj = await competitionTypeId('J&J');
    const nov = await divisionId('NOV');
    const res = await api()
      .put(prefsUrl(event))
      .set('Authorization', p.auth)
      .send({
        maxRecordings: 1,
        unavailable: [
          { competitionTypeId: jj, heatNumber: 4, divisionId: nov },
          { competitionTypeId: jj, heatNumber: 4 },
          { competitionTypeId: jj, heatNumber: 4 },
        ],
      });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      maxRecordings: 1,
      unavailable: [
        { competitionTypeId: jj, heatNumber: 4, divisionId: null },
        { competitionTypeId: jj, heatNumber: 4, divisionId: nov },
      ],
    });
    expect((await audit('recording_preferences_update', event))?.category).toBe('event');
  });

  it('refuses bad entries with the field, a cap above the event max, and non-participants (admins included)', async () => {
    const { event, admin } = await scenario();
    const p = await person(event);
    const bad = await api()
      .put(prefsUrl(event))
      .set('Authorization', p.auth)
      .send({
        unavailable: [{ competitionTypeId: await competitionTypeId('J&J'), heatNumber: 1, divisionId: 999999 }],
      });
    expect(bad.status).toBe(400);
    expect(bad.body.details[0].field).toBe('unavailable[0].divisionId');
    expect(
      (
        await api()
          .put(prefsUrl(event))
          .set('Authorization', p.auth)
          .send({ unavailable: Array(51).fill({ competitionTypeId: 1, heatNumber: 1 }) })
      ).status,
    ).toBe(400);
    const above = await api().put(prefsUrl(event)).set('Authorization', p.auth).send({ maxRecordings: 4 });
    expect(above.status).toBe(400);
    expect(above.body.details[0].field).toBe('maxRecordings');
    expect((await api().put(prefsUrl(event)).set('Authorization', admin.auth).send({ maxRecordings: 1 })).status).toBe(
      403,
    );
    expect((await api().get(prefsUrl(event)).set('Authorization', admin.auth)).status).toBe(403);
    expect((await prisma.eventParticipant.findFirstOrThrow({ where: { userId: p.user.id } })).maxRecordings).toBeNull();
  });

  it('a run never assigns a heat an unavailable entry covers, and says so when nobody else can take it', async () => {
    const { event, admin } = await scenario();
    const a = await person(event);
    const b = await person(event);
    const ha = await heat(a, event, { n: 5 });
    await api()
      .put(prefsUrl(event))
      .set('Authorization', b.auth)
      .send({ unavailable: [{ competitionTypeId: await competitionTypeId('J&J'), heatNumber: 5 }] });
    const run = await runMatching(event, admin);
    expect(run.heatsUnassigned).toBe(1);
    expect((await live(ha.id))?.unfilledReason).toBe('ALL_CANDIDATES_UNAVAILABLE');
  });
});

describe('fairness across events', () => {
  it('GET /users/me and the public profile show recordings done and received (accepted only, every event)', async () => {
    const dancer = await createUser();
    const recorder = await createUser();
    await pastRecording(dancer, recorder);
    const me = await api().get('/api/users/me').set('Authorization', recorder.auth);
    expect(me.body.data.stats.recordings).toEqual({ done: 1, received: 0 });
    const profile = await api().get(`/api/users/${dancer.user.username}`).set('Authorization', recorder.auth);
    expect(profile.body.data.stats.recordings).toEqual({ done: 0, received: 1 });
  });

  it('after locality, the recorder who received more elsewhere records, and `why` says so', async () => {
    const { event, admin } = await scenario();
    const dancer = await person(event, PARIS);
    const helped = await person(event, WARSAW);
    const neutral = await person(event, BERLIN);
    const other = await createUser();
    await pastRecording(helped, other);
    await pastRecording(helped, other);
    const h = await heat(dancer, event, { n: 1 });
    await runMatching(event, admin);
    const s = await live(h.id);
    expect(s?.recorderId).toBe(helped.user.id);
    expect(s?.why).toEqual({ locality: 'anywhere', optOut: false, recorderBalance: 2, pinned: false });
    expect(neutral.user.id).not.toBe(helped.user.id);
  });
});

describe("the dancer's veto", () => {
  it("the dancer rejects a suggestion for her heat; the pair is never proposed again; accepting stays the recorder's", async () => {
    const { event, admin } = await scenario();
    const dancer = await person(event, WARSAW);
    const first = await person(event, WARSAW);
    await person(event, BERLIN);
    const h = await heat(dancer, event, { n: 1 });
    await runMatching(event, admin);
    const s = (await live(h.id))!;
    expect(s.recorderId).toBe(first.user.id);
    expect((await decide(event, dancer, s.id, 'accepted')).body.code).toBe('NOT_RECORDER');
    const res = await decide(event, dancer, s.id, 'rejected');
    expect(res.status).toBe(200);
    expect(res.body.data.status).toBe('rejected');
    expect((await audit('recording_suggestion_reject', event))?.metadata).toMatchObject({ by: 'dancer' });
    await runMatching(event, admin);
    expect(await recorderOf(h.id)).not.toBe(first.user.id);
  });
});

describe('admin pins and removals', () => {
  it('pins a recorder (201, pinned, no origin run); a re-run keeps it and counts it toward the cap', async () => {
    const { event, admin } = await scenario();
    const a = await person(event, WARSAW);
    const b = await person(event, WARSAW);
    const c = await person(event, BERLIN);
    await prisma.eventParticipant.updateMany({ where: { userId: c.user.id }, data: { maxRecordings: 1 } });
    const ha = await heat(a, event, { n: 1 });
    const hb = await heat(b, event, { n: 3 });
    await runMatching(event, admin);
    const res = await api()
      .post(pinUrl(event))
      .set('Authorization', admin.auth)
      .send({ heatId: ha.id, recorderId: c.user.id });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      status: 'pending',
      pinned: true,
      originRunId: null,
      recorder: { id: c.user.id },
      why: { pinned: true },
    });
    expect(await prisma.recordingSuggestion.count({ where: { heatId: ha.id } })).toBe(1);
    expect((await audit('recording_suggestion_pin', event))?.category).toBe('admin');
    const run = await runMatching(event, admin);
    expect(run.heatsTotal).toBe(1);
    expect((await live(ha.id))?.id).toBe(res.body.data.id);
    expect(await recorderOf(hb.id)).toBe(a.user.id);
  });

  it('refuses a pin with the first rule broken and changes nothing', async () => {
    const { event, admin } = await scenario();
    const a = await person(event);
    const b = await person(event);
    const absent = await person(event);
    const ha = await heat(a, event, { n: 2 });
    await heat(b, event, { n: 1 });
    await prisma.eventParticipant.updateMany({ where: { userId: absent.user.id }, data: { absentAt: new Date() } });
    const outsider = await createUser();
    const pin = (recorderId: number, heatId = ha.id) =>
      api().post(pinUrl(event)).set('Authorization', admin.auth).send({ heatId, recorderId });
    expect((await pin(a.user.id)).body.code).toBe('RECORDER_IS_DANCER');
    expect((await pin(outsider.user.id)).body.code).toBe('RECORDER_NOT_PARTICIPANT');
    expect((await pin(absent.user.id)).body.code).toBe('RECORDER_ABSENT');
    expect((await pin(b.user.id)).body.code).toBe('RECORDER_IN_BUFFER');
    expect((await pin(b.user.id, 999999999)).body.code).toBe('HEAT_NOT_FOUND');
    expect(
      (await api().post(pinUrl(event)).set('Authorization', admin.auth).send({ heatId: 'x', recorderId: 1 })).status,
    ).toBe(400);
    expect(await prisma.recordingSuggestion.count({ where: { eventId: event.id } })).toBe(0);
  });

  it('refuses pins that break rule 1, an unavailable entry, a rejected pair, the cap, or an accepted heat', async () => {
    const { event, admin } = await scenario();
    const a = await person(event);
    const dancing = await person(event);
    const away = await person(event);
    const capped = await person(event);
    const rejecter = await person(event);
    const ha = await heat(a, event, { n: 4 });
    await heat(dancing, event, { n: 4 });
    await prisma.eventParticipant.updateMany({
      where: { userId: away.user.id },
      data: { unavailable: [{ competitionTypeId: ha.competitionTypeId, heatNumber: 4, divisionId: null }] },
    });
    await prisma.eventParticipant.updateMany({ where: { userId: capped.user.id }, data: { maxRecordings: 0 } });
    const run = await prisma.matchingRun.create({ data: { eventId: event.id, trigger: 'manual', status: 'success' } });
    await prisma.recordingSuggestion.create({
      data: {
        eventId: event.id,
        heatId: ha.id,
        dancerId: a.user.id,
        recorderId: rejecter.user.id,
        status: 'rejected',
        originRunId: run.id,
      },
    });
    const pin = (recorderId: number, heatId = ha.id) =>
      api().post(pinUrl(event)).set('Authorization', admin.auth).send({ heatId, recorderId });
    expect((await pin(dancing.user.id)).body.code).toBe('RECORDER_DANCING');
    expect((await pin(away.user.id)).body.code).toBe('RECORDER_UNAVAILABLE');
    expect((await pin(rejecter.user.id)).body.code).toBe('PAIR_REJECTED');
    expect((await pin(capped.user.id)).body.code).toBe('RECORDER_AT_CAP');
    const hd = await heat(dancing, event, { n: 8, division: 'INT' });
    await prisma.recordingSuggestion.create({
      data: {
        eventId: event.id,
        heatId: hd.id,
        dancerId: dancing.user.id,
        recorderId: a.user.id,
        status: 'accepted',
        originRunId: run.id,
      },
    });
    const covered = await pin(away.user.id, hd.id);
    expect(covered.status).toBe(409);
    expect(covered.body.code).toBe('HEAT_ALREADY_COVERED');
  });

  it('removes a pending suggestion; the next run never proposes that pair again', async () => {
    const { event, admin } = await scenario();
    const a = await person(event, WARSAW);
    const b = await person(event, WARSAW);
    await person(event, BERLIN);
    const ha = await heat(a, event, { n: 1 });
    await runMatching(event, admin);
    const s = (await live(ha.id))!;
    expect(s.recorderId).toBe(b.user.id);
    const res = await api()
      .delete(`${pinUrl(event)}/${s.id}`)
      .set('Authorization', admin.auth);
    expect(res.status).toBe(200);
    expect(res.body.data.status).toBe('removed');
    expect(
      (
        await api()
          .delete(`${pinUrl(event)}/${s.id}`)
          .set('Authorization', admin.auth)
      ).status,
    ).toBe(409);
    expect(
      (
        await api()
          .delete(`${pinUrl(event)}/abc`)
          .set('Authorization', admin.auth)
      ).status,
    ).toBe(404);
    await runMatching(event, admin);
    expect(await recorderOf(ha.id)).not.toBe(b.user.id);
  });
});

describe('no-shows', () => {
  it('marking absent cancels the duties, the next run re-fills them and keeps the rest; undo allows the pair again', async () => {
    const { event, admin } = await scenario();
    const d1 = await person(event, WARSAW);
    const d2 = await person(event, BERLIN);
    const noShow = await person(event, WARSAW);
    const keeper = await person(event, BERLIN);
    const h1 = await heat(d1, event, { n: 1 });
    const h2 = await heat(d2, event, { n: 1 });
    await runMatching(event, admin);
    const s1 = (await live(h1.id))!;
    const s2 = (await live(h2.id))!;
    expect(s1.recorderId).toBe(noShow.user.id);
    expect(s2.recorderId).toBe(keeper.user.id);
    const res = await api().post(absentUrl(event, noShow.user.id)).set('Authorization', admin.auth);
    expect(res.body.data).toEqual({ userId: noShow.user.id, absent: true, cancelledSuggestions: 1 });
    expect(
      (await api().post(absentUrl(event, noShow.user.id)).set('Authorization', admin.auth)).body.data
        .cancelledSuggestions,
    ).toBe(0);
    expect((await audit('participant_absent', event))?.category).toBe('admin');
    await runMatching(event, admin);
    expect(await recorderOf(h1.id)).toBe(keeper.user.id);
    expect((await live(h2.id))?.id).toBe(s2.id);
    const undo = await api().delete(absentUrl(event, noShow.user.id)).set('Authorization', admin.auth);
    expect(undo.body.data).toEqual({ userId: noShow.user.id, absent: false });
    // the cancelled pair is not forbidden: once the keeper is busy, the next run revives that very suggestion
    await api().put(prefsUrl(event)).set('Authorization', keeper.auth).send({ maxRecordings: 0 });
    const third = await runMatching(event, admin);
    expect(await prisma.recordingSuggestion.findUniqueOrThrow({ where: { id: s1.id } })).toMatchObject({
      status: 'pending',
      originRunId: third.id,
    });
    expect((await api().post(absentUrl(event, 0)).set('Authorization', admin.auth)).status).toBe(400);
    expect(
      (
        await api()
          .post(absentUrl(event, (await createUser()).user.id))
          .set('Authorization', admin.auth)
      ).body.code,
    ).toBe('PARTICIPANT_NOT_FOUND');
  });
});

describe('blocks and suspensions in matching', () => {
  it('a blocked pair is never paired, an accepted suggestion between them is dropped at the next run, and accepting one is 403', async () => {
    const { event, admin } = await scenario();
    const dancer = await person(event, WARSAW);
    const near = await person(event, WARSAW);
    const far = await person(event, BERLIN);
    const h = await heat(dancer, event, { n: 1 });
    const h2 = await heat(far, event, { n: 3 });
    await runMatching(event, admin);
    const s = (await live(h.id))!;
    expect(s.recorderId).toBe(near.user.id);
    await prisma.userBlock.create({ data: { blockerId: dancer.user.id, blockedId: near.user.id } });
    const refused = await decide(event, near, s.id, 'accepted');
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'USER_BLOCKED', error: 'You cannot interact with this user' });
    expect((await prisma.recordingSuggestion.findUniqueOrThrow({ where: { id: s.id } })).status).toBe('pending');
    await runMatching(event, admin);
    expect(await recorderOf(h.id)).toBe(far.user.id);
    // an accepted suggestion between a pair blocked afterwards is dropped too
    const s2 = (await live(h2.id))!;
    await prisma.recordingSuggestion.update({ where: { id: s2.id }, data: { status: 'accepted' } });
    await prisma.userBlock.create({ data: { blockerId: s2.recorderId!, blockedId: far.user.id } });
    await runMatching(event, admin);
    expect((await prisma.recordingSuggestion.findUniqueOrThrow({ where: { id: s2.id } })).status).toBe('cancelled');
    expect(await recorderOf(h2.id)).not.toBe(s2.recorderId);
  });

  it('a suspended participant is left out: no heats in the run, records nobody; pending dropped, accepted kept', async () => {
    const { event, admin } = await scenario();
    const a = await person(event, WARSAW);
    const b = await person(event, WARSAW);
    const c = await person(event, BERLIN);
    const ha = await heat(a, event, { n: 1 });
    const hb = await heat(b, event, { n: 3 });
    await heat(c, event, { n: 5 });
    await runMatching(event, admin);
    const accepted = (await live(hb.id))!;
    await prisma.recordingSuggestion.update({ where: { id: accepted.id }, data: { status: 'accepted' } });
    await prisma.user.update({ where: { id: a.user.id }, data: { suspendedAt: new Date(), suspendedUntil: null } });
    const run = await runMatching(event, admin);
    expect(run.heatsTotal).toBe(1);
    expect(await prisma.recordingSuggestion.count({ where: { heatId: ha.id } })).toBe(0);
    expect(await prisma.recordingSuggestion.count({ where: { recorderId: a.user.id, status: 'pending' } })).toBe(0);
    expect((await prisma.recordingSuggestion.findUniqueOrThrow({ where: { id: accepted.id } })).status).toBe(
      'accepted',
    );
    // a suspension that ended counts for nothing
    await prisma.user.update({ where: { id: a.user.id }, data: { suspendedUntil: new Date(Date.now() - 1000) } });
    expect((await runMatching(event, admin)).heatsTotal).toBe(2);
  });
});

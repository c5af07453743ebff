import { prisma } from '../helpers/db';
import { api } from '../helpers/server';
import { divisionId } from '../helpers/factories';
import { decide, heat, mySuggestions, person, recorderOf, runMatching, scenario } from '../helpers/matching';

/**
 * Each matching rule alone and combined, on hand-built events whose right answer is
 * unambiguous, run through the HTTP API and read back as the dancer, the recorder and
 * the admin.
 */
const WARSAW = { city: 'Warsaw', country: 'Poland' };
const KRAKOW = { city: 'Krakow', country: 'Poland' };
const BERLIN = { city: 'Berlin', country: 'Germany' };

describe('matching rules through the API', () => {
  it('rule 1 collision: nobody records a heat while dancing the same division, type and heat number', async () => {
    const { event, admin } = await scenario();
    const dancer = await person(event, WARSAW);
    const sameCityButDancing = await person(event, WARSAW);
    const farAway = await person(event, BERLIN);
    const h = await heat(dancer, event, { division: 'NOV', type: 'J&J', n: 1 });
    const h2 = await heat(sameCityButDancing, event, { division: 'NOV', type: 'J&J', n: 1 });

    const run = await runMatching(event, admin);
    expect(run).toMatchObject({
      trigger: 'manual',
      status: 'success',
      heatsTotal: 2,
      heatsAssigned: 2,
      heatsUnassigned: 0,
    });
    expect(await recorderOf(h.id)).toBe(farAway.user.id);
    expect(await recorderOf(h2.id)).toBe(farAway.user.id);

    // read back as the dancer and as the recorder
    const asDancer = await mySuggestions(event, dancer);
    expect(asDancer.toBeRecorded).toHaveLength(1);
    expect(asDancer.toBeRecorded[0]).toMatchObject({
      heat: { id: h.id, heatNumber: 1, division: { abbreviation: 'NOV' }, competitionType: { abbreviation: 'J&J' } },
      dancer: { id: dancer.user.id, username: dancer.user.username },
      recorder: { id: farAway.user.id, username: farAway.user.username },
      status: 'pending',
      originRunId: run.id,
    });
    expect(asDancer.toRecord).toEqual([]);
    expect(asDancer.matchingRunAt).not.toBeNull();
    const asRecorder = await mySuggestions(event, farAway);
    expect(asRecorder.toRecord.map((s) => s.heat.id).sort()).toEqual([h.id, h2.id].sort());
    expect(asRecorder.toBeRecorded).toEqual([]);
  });

  it('rule 1 with scheduleConfig: divisions of one slot collide; without the slot they do not', async () => {
    const slots = { slots: [{ order: 1, divisionIds: [await divisionId('NOV'), await divisionId('INT')] }] };
    for (const scheduleConfig of [slots, null]) {
      const { event, admin } = await scenario({ scheduleConfig });
      const dancer = await person(event, WARSAW);
      const sameCity = await person(event, WARSAW);
      const farAway = await person(event, BERLIN);
      const h = await heat(dancer, event, { division: 'NOV', n: 1 });
      await heat(sameCity, event, { division: 'INT', n: 1 });
      await runMatching(event, admin);
      expect(await recorderOf(h.id)).toBe(scheduleConfig ? farAway.user.id : sameCity.user.id);
    }
  });

  it('rule 2 buffer: nobody records heat n+1 right after his own heat n (but heat n-1 is fine)', async () => {
    const { event, admin } = await scenario();
    const dancer = await person(event, WARSAW);
    const sameCity = await person(event, WARSAW);
    const farAway = await person(event, BERLIN);
    const dancerHeat = await heat(dancer, event, { n: 2 });
    const sameCityHeat = await heat(sameCity, event, { n: 1 });
    await runMatching(event, admin);
    // sameCity dances heat 1, so heat 2 right after is out of reach for him
    expect(await recorderOf(dancerHeat.id)).toBe(farAway.user.id);
    // the dancer of heat 2 can still film heat 1 (the buffer is after one's own heat only)
    expect(await recorderOf(sameCityHeat.id)).toBe(dancer.user.id);
  });

  it('rule 2 buffer applies within a slot of scheduleConfig (heat n+1 of another division of the slot)', async () => {
    const { event, admin } = await scenario({
      scheduleConfig: { slots: [{ order: 1, divisionIds: [await divisionId('NOV'), await divisionId('INT')] }] },
    });
    const dancer = await person(event, WARSAW);
    const sameCity = await person(event, WARSAW);
    const farAway = await person(event, BERLIN);
    const h = await heat(dancer, event, { division: 'INT', n: 3 });
    await heat(sameCity, event, { division: 'NOV', n: 2 });
    await runMatching(event, admin);
    expect(await recorderOf(h.id)).toBe(farAway.user.id);
  });

  it('rule 3 location: same city first, then same country, then anyone', async () => {
    const { event, admin } = await scenario();
    const dancer = await person(event, WARSAW);
    const berlin = await person(event, BERLIN);
    const krakow = await person(event, KRAKOW);
    const warsaw = await person(event, { city: ' warsaw ', country: 'POLAND' }); // trimmed, case-insensitive
    const h = await heat(dancer, event, { n: 1 });

    await runMatching(event, admin);
    expect(await recorderOf(h.id)).toBe(warsaw.user.id);

    // each rejection removes the best candidate: the next run proposes the next one in order
    const first = await prisma.recordingSuggestion.findFirstOrThrow({ where: { heatId: h.id, status: 'pending' } });
    expect((await decide(event, warsaw, first.id, 'rejected')).status).toBe(200);
    await runMatching(event, admin);
    expect(await recorderOf(h.id)).toBe(krakow.user.id);

    const second = await prisma.recordingSuggestion.findFirstOrThrow({ where: { heatId: h.id, status: 'pending' } });
    expect((await decide(event, krakow, second.id, 'rejected')).status).toBe(200);
    await runMatching(event, admin);
    expect(await recorderOf(h.id)).toBe(berlin.user.id);

    const third = await prisma.recordingSuggestion.findFirstOrThrow({ where: { heatId: h.id, status: 'pending' } });
    expect((await decide(event, berlin, third.id, 'rejected')).status).toBe(200);
    const last = await runMatching(event, admin);
    expect(last).toMatchObject({ heatsTotal: 1, heatsAssigned: 0, heatsUnassigned: 1 });
    // the dancer sees the three rejections and one not_found entry without a recorder
    const asDancer = await mySuggestions(event, dancer);
    expect(asDancer.toBeRecorded.map((s) => s.status).sort()).toEqual([
      'not_found',
      'rejected',
      'rejected',
      'rejected',
    ]);
    expect(asDancer.toBeRecorded.find((s) => s.status === 'not_found')).toMatchObject({
      recorder: null,
      originRunId: last.id,
    });
  });

  it('rule 4 cap: a person records at most 3 heats, accepted ones from earlier runs included', async () => {
    const { event, admin } = await scenario();
    const recorder = await person(event, WARSAW);
    const backup = await person(event, BERLIN);
    const dancers = [];
    for (let i = 0; i < 4; i++) dancers.push(await person(event, WARSAW));
    // all four dance the same heat: they cannot film each other
    const heats = [];
    for (const d of dancers) heats.push(await heat(d, event, { n: 1 }));

    await runMatching(event, admin);
    const load = async (userId: number) =>
      prisma.recordingSuggestion.count({
        where: { eventId: event.id, recorderId: userId, status: { in: ['pending', 'accepted'] } },
      });
    expect(await load(recorder.user.id)).toBe(3);
    expect(await load(backup.user.id)).toBe(1);

    // the recorder accepts one; a fifth dancer arrives; the re-run keeps the accepted one,
    // and the recorder can take only 2 new heats (1 accepted + 2 = 3)
    const mine = await mySuggestions(event, recorder);
    expect(mine.toRecord).toHaveLength(3);
    const accepted = mine.toRecord[0];
    expect((await decide(event, recorder, accepted.id, 'accepted')).status).toBe(200);
    const late = await person(event, WARSAW);
    heats.push(await heat(late, event, { n: 1 }));

    const rerun = await runMatching(event, admin);
    expect(rerun).toMatchObject({ heatsTotal: 4, heatsAssigned: 4, heatsUnassigned: 0 });
    expect(await load(recorder.user.id)).toBe(3);
    expect(await load(backup.user.id)).toBe(2);
    const keptAccepted = await prisma.recordingSuggestion.findUniqueOrThrow({ where: { id: accepted.id } });
    expect(keptAccepted).toMatchObject({
      status: 'accepted',
      recorderId: recorder.user.id,
      originRunId: accepted.originRunId,
    });
    for (const h of heats) expect(await recorderOf(h.id)).toEqual(expect.any(Number));
  });

  it('rule 5 opt-out: an opted-out participant records only when nobody else can', async () => {
    const { event, admin } = await scenario();
    const dancer = await person(event, WARSAW);
    const optedOutNeighbour = await person(event, { ...WARSAW, optOut: true });
    const stranger = await person(event, BERLIN);
    const h = await heat(dancer, event, { n: 5 });
    await runMatching(event, admin);
    expect(await recorderOf(h.id)).toBe(stranger.user.id);

    // the stranger now dances the same heat: the opted-out participant is the only one left
    await heat(stranger, event, { n: 5 });
    await runMatching(event, admin);
    expect(await recorderOf(h.id)).toBe(optedOutNeighbour.user.id);
  });

  it('combined: collision, buffer, opt-out and location together, with a heat nobody can film', async () => {
    const { event, admin } = await scenario();
    const dancer = await person(event, WARSAW);
    const colliding = await person(event, WARSAW); // dances the same heat
    const buffered = await person(event, WARSAW); // dances the heat before
    const optedOut = await person(event, { ...WARSAW, optOut: true });
    const sameCountry = await person(event, KRAKOW);
    const foreign = await person(event, BERLIN);
    const h = await heat(dancer, event, { division: 'ADV', type: 'STR', n: 4 });
    await heat(colliding, event, { division: 'ADV', type: 'STR', n: 4 });
    await heat(buffered, event, { division: 'ADV', type: 'STR', n: 3 });
    // colliding and buffered are out, the opted-out neighbour comes last: same country wins over abroad
    const first = await runMatching(event, admin);
    expect(await recorderOf(h.id)).toBe(sameCountry.user.id);

    // a heat danced by every participant at once cannot be filmed: not_found, recorder null
    const everyone = [dancer, colliding, buffered, optedOut, sameCountry, foreign];
    const loneHeats = [];
    for (const u of everyone) loneHeats.push(await heat(u, event, { division: 'CHA', type: 'J&J', n: 9 }));
    const run = await runMatching(event, admin);
    expect(run.heatsUnassigned).toBe(6);
    for (const lh of loneHeats) expect(await recorderOf(lh.id)).toBeNull();

    // the admin sees the pairs of each run with dancer, recorder, heat and status: the second run
    // kept the first run's three pairs (they stay with their origin run) and added the six open heats
    const res = await api()
      .get(`/api/admin/events/${event.slug}/matching-runs/${run.id}/suggestions`)
      .set('Authorization', admin.auth);
    expect(res.status).toBe(200);
    expect(run.heatsTotal).toBe(9);
    expect(res.body.count).toBe(6);
    expect(res.body.data.filter((s: { status: string }) => s.status === 'not_found')).toHaveLength(6);
    const firstPairs = await api()
      .get(`/api/admin/events/${event.slug}/matching-runs/${first.id}/suggestions`)
      .set('Authorization', admin.auth);
    expect(firstPairs.body.count).toBe(3);
    const forH = firstPairs.body.data.find((s: { heat: { id: number } }) => s.heat.id === h.id);
    expect(forH).toMatchObject({
      dancer: { id: dancer.user.id },
      recorder: { id: sameCountry.user.id },
      status: 'pending',
      originRunId: first.id,
    });
  });
});

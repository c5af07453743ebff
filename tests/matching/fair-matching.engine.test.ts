/**
 * The engine with the "fair matching for people" inputs: buffers, opt-out mode, personal
 * caps, unavailable entries, absences, balances and pins. Small events where one answer is
 * right, then properties against the independent solvers of tests/matching/support.
 */
import fc from 'fast-check';
import { runMatchingEngine, type EngineInput } from '../../src/modules/matching/matching.engine.js';
import { maxCoverage } from './support/maxflow.js';
import {
  bruteForceBest,
  engineObjective,
  eventArb,
  expectValid,
  fairEventArb,
  heat,
  input,
  openHeats,
  participant,
  person,
  reasonOf,
  recorderOf,
  referenceBest,
  runEngine,
  shuffledInput,
} from './support/engine-fixtures.js';

describe('settings', () => {
  test('bufferBefore 1: nobody records the heat right before his/her own heat', () => {
    const h = heat(1, 1, 2);
    const participants = [person(1), person(2, 'Seattle'), person(3, 'Paris')];
    const heats = [h, heat(2, 1, 3)]; // 2 dances heat 3: heat 2 is right before it
    expect(recorderOf(runEngine({ participants: [person(1, 'Seattle'), ...participants.slice(1)], heats }), h.id)).toBe(
      2,
    );
    const res = runMatchingEngine(
      input({ participants: [person(1, 'Seattle'), ...participants.slice(1)], heats, bufferBefore: 1 }),
    );
    expect(recorderOf(res, h.id)).toBe(3);
  });

  test("bufferAfter 0 allows the heat right after one's own; bufferAfter 2 also forbids n+2", () => {
    const h = heat(1, 1, 4);
    const participants = [person(1, 'Seattle'), person(2, 'Seattle'), person(3, 'Paris')];
    expect(recorderOf(runEngine({ participants, heats: [h, heat(2, 1, 3)], bufferAfter: 0 }), h.id)).toBe(2);
    expect(recorderOf(runEngine({ participants, heats: [h, heat(2, 1, 3)] }), h.id)).toBe(3);
    expect(recorderOf(runEngine({ participants, heats: [h, heat(2, 1, 2)], bufferAfter: 2 }), h.id)).toBe(3);
    expect(recorderOf(runEngine({ participants, heats: [h, heat(2, 1, 2)] }), h.id)).toBe(2);
  });

  test('maxRecordingsPerPerson replaces the 3 of rule 4', () => {
    const heats = [heat(1, 1, 1), heat(2, 1, 1), heat(3, 1, 1), heat(4, 1, 1), heat(5, 1, 1)];
    const participants = [1, 2, 3, 4, 5, 6].map((u) => person(u));
    expect(runEngine({ participants, heats, maxRecordingsPerPerson: 3 }).stats.covered).toBe(3);
    expect(runEngine({ participants, heats, maxRecordingsPerPerson: 5 }).stats.covered).toBe(5);
  });

  test('optOutMode exclude: an opted-out participant never records, even when a heat stays open', () => {
    const h = heat(1, 1, 1);
    const participants = [person(1), person(2, null, null, true)];
    expect(recorderOf(runEngine({ participants, heats: [h] }), h.id)).toBe(2);
    const res = runEngine({ participants, heats: [h], optOutMode: 'exclude' });
    expect(res.unassigned).toEqual([h.id]);
    expect(reasonOf(res, h.id)).toBe('ALL_CANDIDATES_UNAVAILABLE');
  });
});

describe('preferences and absence', () => {
  test('a personal cap below the event max limits the person; 0 means never asked', () => {
    const heats = [heat(1, 1, 1), heat(2, 1, 1), heat(3, 1, 1)];
    const participants = [
      person(1),
      person(2),
      person(3),
      participant(9, { city: 'Seattle', maxRecordings: 1 }),
      person(10),
    ];
    const res = runEngine({ participants, heats });
    expect(res.assignments.filter((a) => a.recorderId === 9)).toHaveLength(1);
    const none = runMatchingEngine(
      input({ participants: participants.map((p) => (p.userId === 9 ? { ...p, maxRecordings: 0 } : p)), heats }),
    );
    expect(none.assignments.some((a) => a.recorderId === 9)).toBe(false);
    expect(none.stats.covered).toBe(3);
  });

  test('a personal cap above the event max is capped by the event max', () => {
    const heats = [heat(1, 1, 1), heat(2, 1, 1), heat(3, 1, 1)];
    const res = runMatchingEngine(
      input({
        participants: [person(1), person(2), person(3), participant(9, { maxRecordings: 5 })],
        heats,
        maxRecordingsPerPerson: 2,
      }),
    );
    expect(res.stats.covered).toBe(2);
  });

  test('an unavailable entry without a division covers every division at that type and number', () => {
    const h = heat(1, 3, 2);
    const participants = [
      person(1, 'Seattle'),
      participant(2, { city: 'Seattle', unavailable: [{ competitionTypeId: 1, heatNumber: 2, divisionId: null }] }),
      person(3),
    ];
    expect(recorderOf(runEngine({ participants, heats: [h] }), h.id)).toBe(3);
  });

  test('an unavailable entry with a division covers that division and its slot only', () => {
    const h = heat(1, 2, 2);
    const entry = { competitionTypeId: 1, heatNumber: 2, divisionId: 1 };
    const participants = [person(1, 'Seattle'), participant(2, { city: 'Seattle', unavailable: [entry] }), person(3)];
    expect(recorderOf(runEngine({ participants, heats: [h] }), h.id)).toBe(2);
    expect(recorderOf(runEngine({ participants, heats: [h], slots: [{ order: 1, divisionIds: [1, 2] }] }), h.id)).toBe(
      3,
    );
  });

  test('buffers do not extend an unavailable entry', () => {
    const h = heat(1, 1, 3);
    const participants = [
      person(1, 'Seattle'),
      participant(2, { city: 'Seattle', unavailable: [{ competitionTypeId: 1, heatNumber: 2, divisionId: null }] }),
      person(3),
    ];
    expect(recorderOf(runEngine({ participants, heats: [h] }), h.id)).toBe(2);
  });

  test('an absent participant never records but his/her own heats are matched', () => {
    const mine = heat(2, 1, 5);
    const h = heat(1, 1, 1);
    const participants = [person(1), participant(2, { city: 'X', absent: true }), person(3, 'X')];
    const res = runEngine({ participants, heats: [h, mine] });
    expect(res.assignments.some((a) => a.recorderId === 2)).toBe(false);
    expect(recorderOf(res, mine.id)).toBe(3);
  });

  test('a heat whose only free candidates are unavailable, absent or at a personal cap of 0 gets ALL_CANDIDATES_UNAVAILABLE', () => {
    const h = heat(1, 1, 1);
    const participants = [
      person(1),
      participant(2, { absent: true }),
      participant(3, { maxRecordings: 0 }),
      participant(4, { unavailable: [{ competitionTypeId: 1, heatNumber: 1, divisionId: null }] }),
      person(5),
    ];
    const res = runEngine({ participants, heats: [h, heat(5, 1, 1)] });
    expect(reasonOf(res, h.id)).toBe('ALL_CANDIDATES_UNAVAILABLE');
  });
});

describe('fairness', () => {
  test('after locality, the recorder with the higher balance records, even several heats', () => {
    const heats = [heat(1, 1, 1), heat(2, 2, 1), heat(3, 3, 1)];
    const participants = [
      person(1),
      person(2),
      person(3),
      participant(8, { balance: 0 }),
      participant(9, { balance: 4 }),
    ];
    const res = runEngine({ participants, heats });
    expect(res.assignments.map((a) => a.recorderId)).toEqual([9, 9, 9]);
    expect(res.stats.balanceSum).toBe(12);
  });

  test('locality outranks the balance', () => {
    const h = heat(1, 1, 1);
    const participants = [
      person(1, 'Seattle'),
      participant(8, { city: 'Seattle', balance: -5 }),
      participant(9, { city: 'Paris', balance: 5 }),
    ];
    expect(recorderOf(runEngine({ participants, heats: [h] }), h.id)).toBe(8);
  });

  test('balances too far apart for exact weights: coverage, opt-out and locality stay exact and the true balances are reported', () => {
    // A balance span of 10^15 makes the scalar weights pass 2^53, so the balance tier uses the
    // largest span that fits (scalarCosts in matching.engine.ts): recorder 2, 10^15 below the
    // others, counts as equal to them there, but still loses nothing above that tier.
    const seattle = [heat(1, 1, 1), heat(1, 2, 1)];
    const berlin = [heat(5, 3, 1), heat(5, 4, 1), heat(5, 5, 1)];
    const inp = input({
      participants: [
        person(1, 'Seattle', 'USA'),
        participant(2, { city: 'Seattle', country: 'USA', balance: -1e15 }),
        participant(3, { city: 'Paris', country: 'France', balance: 5 }),
        participant(4, { city: 'Paris', country: 'France', balance: 4 }),
        person(5, 'Berlin', 'Germany'),
        participant(7, { city: 'Tokyo', country: 'Japan', balance: 5 }),
        participant(8, { city: 'Tokyo', country: 'Japan', balance: 5 }),
      ].map((p) => Object.freeze(p)),
      heats: [...seattle, ...berlin],
    });
    const res = runMatchingEngine(inp);
    expectValid(inp, res);
    // Locality first: the same-city recorder, whatever his/her balance.
    expect(seattle.map((h) => recorderOf(res, h.id))).toEqual([2, 2]);
    // Then the highest balance (5, not 4), then load spreading among the three at 5.
    expect(berlin.map((h) => recorderOf(res, h.id)).sort()).toEqual([3, 7, 8]);
    expect(engineObjective(inp, res)).toEqual(referenceBest(inp));
    expect(res.stats.balanceSum).toBe(2 * -1e15 + 15);
  });

  test('with every balance equal the plan is the plan without balances', () => {
    fc.assert(
      fc.property(eventArb(15, 3), fc.integer({ min: -3, max: 3 }), (inp, b) => {
        const same = { ...inp, participants: inp.participants.map((p) => ({ ...p, balance: b })) };
        expect(runMatchingEngine(same).assignments).toEqual(runMatchingEngine(inp).assignments);
      }),
      { numRuns: 100 },
    );
  });
});

describe('pins', () => {
  test('a pin is kept, covers its heat and counts toward the recorder cap', () => {
    const h = heat(1, 1, 1);
    const other = heat(3, 2, 1);
    const participants = [
      person(1, 'Seattle'),
      person(2, 'Seattle'),
      participant(4, { city: 'Paris', maxRecordings: 1 }),
      person(3),
    ];
    const res = runMatchingEngine(
      input({ participants, heats: [h, other], pinned: [{ heatId: h.id, recorderId: 4 }] }),
    );
    expect(res.pins.kept).toEqual([{ heatId: h.id, recorderId: 4 }]);
    expect(res.assignments.some((a) => a.heatId === h.id)).toBe(false);
    expect(res.assignments.some((a) => a.recorderId === 4)).toBe(false);
    expect(res.stats.heats).toBe(1);
  });

  test('a pin whose recorder now dances then, is absent or unavailable is dropped and its heat re-filled', () => {
    const h = heat(1, 1, 2);
    const base = [person(1), person(2), person(3)];
    const dropped = (participants: EngineInput['participants'], heats = [h]) =>
      runEngine({ participants, heats, pinned: [{ heatId: h.id, recorderId: 2 }] });
    expect(dropped(base, [h, heat(2, 1, 1)]).pins.dropped).toEqual([{ heatId: h.id, recorderId: 2 }]);
    expect(dropped([person(1), participant(2, { absent: true }), person(3)]).pins.dropped).toHaveLength(1);
    const res = dropped([
      person(1),
      participant(2, { unavailable: [{ competitionTypeId: 1, heatNumber: 2, divisionId: null }] }),
      person(3),
    ]);
    expect(res.pins.dropped).toHaveLength(1);
    expect(recorderOf(res, h.id)).toBe(3);
  });

  test('opt-out (exclude) and caps never drop a pin', () => {
    const h = heat(1, 1, 1);
    const res = runMatchingEngine(
      input({
        participants: [person(1), participant(2, { optOut: true, maxRecordings: 0 })],
        heats: [h],
        optOutMode: 'exclude',
        pinned: [{ heatId: h.id, recorderId: 2 }],
      }),
    );
    expect(res.pins.kept).toHaveLength(1);
  });
});

describe('properties under random settings, preferences, pins and absences', () => {
  test('no hard rule is broken and coverage equals the independent max flow', () => {
    fc.assert(
      fc.property(fairEventArb(20, 4), (inp) => {
        const res = runMatchingEngine(inp);
        expectValid(inp, res);
        expect(res.stats.covered).toBe(maxCoverage(inp));
        expect(res.stats.covered).toBe(maxCoverage(inp, { explicit: true }));
      }),
      { numRuns: 300 },
    );
  });

  test('the full lexicographic objective (coverage, opt-out, city, country, balance, load) equals exhaustive search on tiny events', () => {
    fc.assert(
      fc.property(
        fairEventArb(5, 2).filter((inp) => openHeats(inp).length <= 7),
        (inp) => {
          const res = runMatchingEngine(inp);
          expectValid(inp, res);
          expect(engineObjective(inp, res)).toEqual(bruteForceBest(inp));
        },
      ),
      { numRuns: 300 },
    );
  });

  test('the full lexicographic objective equals an independent vector-cost min-cost flow, with previous pairs', () => {
    fc.assert(
      fc.property(fairEventArb(20, 4, true), (inp) => {
        const res = runMatchingEngine(inp);
        expect(engineObjective(inp, res)).toEqual(referenceBest(inp));
        expect(res.stats.balanceSum).toBe(0 - engineObjective(inp, res)[4]);
      }),
      { numRuns: 200 },
    );
  });

  test('the result does not depend on input order', () => {
    fc.assert(
      fc.property(fairEventArb(12, 4), fc.integer({ min: 1, max: 1 << 30 }), (inp, seed) => {
        expect(runMatchingEngine({ ...shuffledInput(inp, seed), pinned: [...(inp.pinned ?? [])].reverse() })).toEqual(
          runMatchingEngine(inp),
        );
      }),
      { numRuns: 100 },
    );
  });
});

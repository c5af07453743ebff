import fc from 'fast-check';
import {
  buildSlotMap,
  runMatchingEngine,
  timeKey,
  type EngineHeat,
  type EngineParticipant,
  type EngineResult,
} from '../../src/modules/matching/matching.engine.js';
import { maxCoverage } from './support/maxflow.js';
import {
  bruteForceBest,
  candidates,
  cls,
  engineObjective,
  eventArb,
  expectValid,
  fixedLoads,
  heat,
  input,
  openHeats,
  person,
  recorderOf,
  referenceBest,
  runEngine,
  shuffledInput,
} from './support/engine-fixtures.js';
// ---------------------------------------------------------------------------------------
// Unit tests, one per rule
// ---------------------------------------------------------------------------------------

describe('helpers', () => {
  test('buildSlotMap groups slot divisions; unslotted divisions keep their own key', () => {
    const slotOf = buildSlotMap([
      { order: 2, divisionIds: [5, 6] },
      { order: 1, divisionIds: [2, 1] },
    ]);
    expect(slotOf.get(1)).toBe(slotOf.get(2));
    expect(slotOf.get(5)).toBe(slotOf.get(6));
    expect(slotOf.get(1)).not.toBe(slotOf.get(5));
    const k = (divisionId: number, heatNumber = 1, competitionTypeId = 1) =>
      timeKey({ divisionId, heatNumber, competitionTypeId }, slotOf);
    expect(k(1)).toBe(k(2));
    expect(k(3)).not.toBe(k(4));
    expect(k(3)).not.toBe(k(1));
    expect(k(1, 1, 1)).not.toBe(k(1, 1, 2));
    expect(k(1, 1)).not.toBe(k(1, 2));
    expect(buildSlotMap(null).size).toBe(0);
    expect(buildSlotMap([]).size).toBe(0);
  });
});

describe('rules', () => {
  test('rule 1 collision: nobody records while dancing at the same division, type and heat number', () => {
    // Dancer 1 dances D1/J&J/3. Recorder 2 dances the same heat; recorder 3 is the
    // preferred (same-city) one but dances too; only 4 (other country) is free.
    const h = heat(1, 1, 3);
    const inp = input({
      participants: [
        person(1, 'Seattle', 'USA'),
        person(2, 'Seattle', 'USA'),
        person(3, 'Seattle', 'USA'),
        person(4, 'Berlin', 'Germany'),
      ],
      heats: [h, heat(2, 1, 3, 1), heat(3, 1, 3, 1)],
    });
    const res = runMatchingEngine(inp);
    expect(recorderOf(res, h.id)).toBe(4);
    expectValid(inp, res);
    // Same number in another competition type or another (unslotted) division: no collision.
    const h2 = heat(10, 1, 3, 1);
    const inp2 = input({
      participants: [person(10, 'Seattle', 'USA'), person(11, 'Seattle', 'USA'), person(12, 'Berlin', 'Germany')],
      heats: [h2, heat(11, 1, 3, 2), heat(11, 2, 3, 1)],
    });
    expect(recorderOf(runMatchingEngine(inp2), h2.id)).toBe(11);
  });

  test('rule 1 slot grouping: divisions in one scheduleConfig slot collide, others do not', () => {
    const h = heat(1, 1, 5);
    const participants = [person(1, 'Seattle', 'USA'), person(2, 'Seattle', 'USA'), person(3, 'Paris', 'France')];
    const heats = [h, heat(2, 2, 5)]; // recorder 2 dances division 2, heat 5
    // Without slots division 1 and 2 are different times: the same-city recorder 2 is used.
    expect(recorderOf(runEngine({ participants, heats, slots: null }), h.id)).toBe(2);
    expect(recorderOf(runEngine({ participants, heats, slots: [] }), h.id)).toBe(2);
    // With divisions 1 and 2 in one slot, recorder 2 is busy: only 3 remains.
    const slotted = input({ participants, heats, slots: [{ order: 1, divisionIds: [1, 2] }] });
    const res = runMatchingEngine(slotted);
    expect(recorderOf(res, h.id)).toBe(3);
    expectValid(slotted, res);
    // A slot that groups other divisions changes nothing.
    expect(recorderOf(runEngine({ participants, heats, slots: [{ order: 1, divisionIds: [2, 3] }] }), h.id)).toBe(2);
  });

  test('rule 2 buffer: no recording of heat n+1 of the same slot and type, everything else is fine', () => {
    const participants = [person(1, 'Seattle', 'USA'), person(2, 'Seattle', 'USA'), person(3, 'Paris', 'France')];
    const slots = [{ order: 1, divisionIds: [1, 2] }];
    const target = heat(1, 1, 4);
    const run = (own: EngineHeat) => recorderOf(runEngine({ participants, heats: [target, own], slots }), target.id);
    expect(run(heat(2, 1, 3, 1, 900))).toBe(3); // own heat 3, target heat 4, same division: buffer
    expect(run(heat(2, 2, 3, 1, 901))).toBe(3); // own heat 3 in a division of the same slot: buffer
    expect(run(heat(2, 1, 5, 1, 902))).toBe(2); // own heat right AFTER the target: allowed
    expect(run(heat(2, 1, 2, 1, 903))).toBe(2); // two heats before: allowed
    expect(run(heat(2, 3, 3, 1, 904))).toBe(2); // heat 3 in another slot: allowed
    expect(run(heat(2, 1, 3, 2, 905))).toBe(2); // heat 3 in another competition type: allowed
  });

  test('rule 4: at most 3 recordings per person, accepted ones included', () => {
    // Five Seattle dancers in the same heat (so none can record another); recorder 100 is the
    // only same-city recorder, 101 and 102 are far away.
    const participants = [
      person(100, 'Seattle', 'USA'),
      person(101, 'Berlin', 'Germany'),
      person(102, 'Berlin', 'Germany'),
    ];
    const heats: EngineHeat[] = [];
    for (let i = 0; i < 5; i++) {
      participants.push(person(i + 1, 'Seattle', 'USA'));
      heats.push(heat(i + 1, 1, 1, 1, 200 + i));
    }
    const count = (res: EngineResult, r: number) => res.assignments.filter((a) => a.recorderId === r).length;
    const fresh = input({ participants, heats });
    const res = runMatchingEngine(fresh);
    expectValid(fresh, res);
    expect(count(res, 100)).toBe(3); // preference fills 100 up to the cap, not beyond
    expect(res.stats).toMatchObject({ covered: 5, sameCity: 3, maxLoad: 3 });
    // Two accepted recordings of 100 from an earlier run: only one new one.
    const rerun = input({
      participants,
      heats,
      fixed: [
        { heatId: 203, recorderId: 100 },
        { heatId: 204, recorderId: 100 },
      ],
    });
    const res2 = runMatchingEngine(rerun);
    expectValid(rerun, res2);
    expect(count(res2, 100)).toBe(1);
    expect(res2.stats).toMatchObject({ heats: 3, covered: 3, maxLoad: 3 });
    // A configurable cap.
    const capped = runMatchingEngine({ ...fresh, maxRecordingsPerPerson: 1 });
    expect(capped.stats).toMatchObject({ covered: 3, maxLoad: 1 });
    expect(capped.unassigned).toHaveLength(2);
  });

  test('rule 5 opt-out: used last, but used when coverage needs it', () => {
    const h1 = heat(1, 1, 1);
    const participants = [
      person(1, 'Seattle', 'USA'),
      person(2, 'Seattle', 'USA', true),
      person(3, 'Melbourne', 'Australia'),
    ];
    // The opt-out recorder is in the dancer's city; the other one is far away: still the other.
    const res = runEngine({ participants, heats: [h1] });
    expect(recorderOf(res, h1.id)).toBe(3);
    expect(res.stats.optOutUses).toBe(0);
    // Recorder 3 is busy: the opt-out recorder covers the heat rather than leaving it open.
    const inp = input({ participants, heats: [h1, heat(3, 1, 1)] });
    const res2 = runMatchingEngine(inp);
    expect(recorderOf(res2, h1.id)).toBe(2);
    expect(res2.stats.optOutUses).toBeGreaterThanOrEqual(1);
    expect(res2.unassigned).toEqual([]);
    expectValid(inp, res2);
  });

  test('rule 3 preference: same city, then same country, then anyone (trimmed, case-insensitive)', () => {
    const h = heat(1, 1, 1);
    const dancer = person(1, 'Seattle', 'USA');
    const city = person(2, '  seattle ', 'usa');
    const country = person(3, 'Portland', ' USA');
    const anyone = person(4, 'Paris', 'France');
    const noLoc = person(5, null, null);
    const pick = (...ps: EngineParticipant[]) =>
      recorderOf(runEngine({ participants: [dancer, ...ps], heats: [h] }), h.id);
    expect(pick(anyone, country, city, noLoc)).toBe(2);
    expect(pick(anyone, country, noLoc)).toBe(3);
    const r = runEngine({ participants: [dancer, anyone, country, city], heats: [h] });
    expect(r.stats).toMatchObject({ sameCity: 1, sameCountry: 0 });
    // null never equals null: a dancer without location has no preferred recorder.
    const lost = heat(6, 1, 2);
    const res = runMatchingEngine(
      input({ participants: [person(6, null, null), person(7, null, null)], heats: [lost] }),
    );
    expect(res.stats).toMatchObject({ covered: 1, sameCity: 0, sameCountry: 0 });
  });

  test('rejected pairs are never proposed again', () => {
    const h = heat(1, 1, 1);
    const participants = [
      person(1, 'Seattle', 'USA'),
      person(2, 'Seattle', 'USA'),
      person(3, 'Seattle', 'USA'),
      person(4, 'Paris', 'France'),
    ];
    const first = runEngine({ participants, heats: [h] });
    const r1 = recorderOf(first, h.id)!;
    expect([2, 3]).toContain(r1);
    const second = runMatchingEngine(
      input({ participants, heats: [h], forbidden: [{ heatId: h.id, recorderId: r1 }] }),
    );
    const r2 = recorderOf(second, h.id)!;
    expect(r2).not.toBe(r1);
    expect([2, 3]).toContain(r2);
    const third = runMatchingEngine(
      input({
        participants,
        heats: [h],
        forbidden: [
          { heatId: h.id, recorderId: 2 },
          { heatId: h.id, recorderId: 3 },
        ],
      }),
    );
    expect(recorderOf(third, h.id)).toBe(4);
    const none = runMatchingEngine(
      input({ participants, heats: [h], forbidden: [2, 3, 4].map((r) => ({ heatId: h.id, recorderId: r })) }),
    );
    expect(none.unassigned).toEqual([h.id]);
  });

  test('accepted (fixed) heats are not reassigned', () => {
    const a = heat(1, 1, 1);
    const b = heat(1, 2, 1);
    const participants = [person(1, 'Seattle', 'USA'), person(2, 'Seattle', 'USA'), person(3, 'Paris', 'France')];
    const inp = input({ participants, heats: [a, b], fixed: [{ heatId: a.id, recorderId: 3 }] });
    const res = runMatchingEngine(inp);
    expect(res.assignments.map((x) => x.heatId)).toEqual([b.id]);
    expect(res.unassigned).toEqual([]);
    expect(res.stats.heats).toBe(1);
    expectValid(inp, res);
  });

  test('one recorder may record two dancers of the same heat; load is spread when possible', () => {
    const a = heat(1, 1, 1);
    const b = heat(2, 1, 1);
    // Only recorder 3 exists besides the two dancers (who are busy): both heats go to 3.
    const one = runEngine({ participants: [person(1), person(2), person(3)], heats: [a, b] });
    expect(one.assignments).toEqual([
      { heatId: a.id, recorderId: 3 },
      { heatId: b.id, recorderId: 3 },
    ]);
    // Two equally good recorders: one heat each.
    const two = runEngine({ participants: [person(1), person(2), person(3), person(4)], heats: [a, b] });
    expect(new Set(two.assignments.map((x) => x.recorderId)).size).toBe(2);
    expect(two.stats.maxLoad).toBe(1);
  });

  test('deterministic: the same result for shuffled input', () => {
    const participants: EngineParticipant[] = [];
    const heats: EngineHeat[] = [];
    const cities = ['Seattle', 'Portland', 'Paris', null];
    for (let u = 1; u <= 30; u++) {
      participants.push(person(u, cities[u % 4], u % 4 === 2 ? 'France' : 'USA', u % 7 === 0));
      for (let j = 0; j < (u % 4) + 1; j++)
        heats.push(heat(u, 1 + ((u + j) % 3), 1 + ((u * 3 + j) % 4), 1 + (j % 2), 5000 + u * 10 + j));
    }
    const inp = input({
      participants,
      heats,
      slots: [{ order: 1, divisionIds: [1, 2] }],
      fixed: [{ heatId: 5010, recorderId: 5 }],
      forbidden: [
        { heatId: 5020, recorderId: 3 },
        { heatId: 5030, recorderId: 9 },
      ],
    });
    const base = runMatchingEngine(inp);
    expectValid(inp, base);
    for (let seed = 1; seed <= 5; seed++) expect(runMatchingEngine(shuffledInput(inp, seed))).toEqual(base);
  });

  test('optimal where greedy in heat order is not: every heat is covered', () => {
    // Cap 1. Heat A (id 1) can go to recorders 3 or 4; heat B (id 2) only to 3 (4 dances B's
    // heat, 1 was rejected, 2 is the dancer). Greedy in heat order gives A its best
    // recorder, 3 (same city), and B stays open. The engine covers both.
    const A = heat(1, 1, 1, 1, 1);
    const B = heat(2, 1, 3, 1, 2);
    const R = heat(4, 1, 3, 1, 3); // recorder 4's own heat, already covered by 1
    const inp = input({
      participants: [
        person(1, 'Seattle', 'USA'),
        person(2, 'Portland', 'USA'),
        person(3, 'Seattle', 'USA'),
        person(4, 'Denver', 'USA'),
      ],
      heats: [A, B, R],
      fixed: [{ heatId: R.id, recorderId: 1 }],
      forbidden: [{ heatId: A.id, recorderId: 2 }],
      maxRecordingsPerPerson: 1,
    });
    // Greedy: heats by id, best candidate (city > country > other, then id) with room left.
    const load = fixedLoads(inp);
    let greedyCovered = 0;
    for (const h of openHeats(inp)) {
      const options = candidates(inp, h).filter((r) => (load.get(r) ?? 0) < 1);
      options.sort((x, y) => cls(inp, h.userId, x) - cls(inp, h.userId, y) || x - y);
      if (options.length) {
        load.set(options[0], 1);
        greedyCovered++;
      }
    }
    expect(greedyCovered).toBe(1);
    const res = runMatchingEngine(inp);
    expect(res.stats.covered).toBe(2);
    expect(res.assignments).toEqual([
      { heatId: 1, recorderId: 4 },
      { heatId: 2, recorderId: 3 },
    ]);
    expect(maxCoverage(inp)).toBe(2);
    expectValid(inp, res);
  });

  test('edge cases: no heats, no participants, nobody free, cap 0', () => {
    expect(runEngine({ participants: [], heats: [] })).toEqual({
      assignments: [],
      unassigned: [],
      stats: { heats: 0, covered: 0, optOutUses: 0, sameCity: 0, sameCountry: 0, balanceSum: 0, maxLoad: 0 },
      unfilled: [],
      reuse: { valid: 0, kept: 0, added: 0, dropped: [], invalid: [] },
      pins: { kept: [], dropped: [] },
    });
    const h = heat(1, 1, 1);
    expect(runEngine({ participants: [person(1)], heats: [h] }).unassigned).toEqual([h.id]);
    expect(runEngine({ participants: [], heats: [h] }).unassigned).toEqual([h.id]);
    expect(
      runEngine({ participants: [person(1), person(2)], heats: [h], maxRecordingsPerPerson: 0 }).unassigned,
    ).toEqual([h.id]);
    expect(() => runEngine({ participants: [person(1)], heats: [h, { ...h }] })).toThrow(/duplicate heat/);
  });
});

describe('properties', () => {
  test('every assignment respects the rules; coverage equals the independent max flow', () => {
    fc.assert(
      fc.property(eventArb(25, 4), (inp) => {
        const res = runMatchingEngine(inp);
        expectValid(inp, res);
        expect(res.stats.covered).toBe(maxCoverage(inp));
        expect(res.stats.covered).toBe(maxCoverage(inp, { explicit: true }));
      }),
      { numRuns: 300 },
    );
  });

  test('opt-out uses are minimal: total optimum minus what non-opt-out recorders can cover', () => {
    fc.assert(
      fc.property(eventArb(25, 4), (inp) => {
        const res = runMatchingEngine(inp);
        const optOut = new Set(inp.participants.filter((p) => p.optOut).map((p) => p.userId));
        const withoutOptOut = maxCoverage(inp, { recorderFilter: (u) => !optOut.has(u) });
        expect(res.stats.optOutUses).toBe(maxCoverage(inp) - withoutOptOut);
      }),
      { numRuns: 300 },
    );
  });

  test('full lexicographic optimum equals exhaustive search on tiny events', () => {
    fc.assert(
      fc.property(
        eventArb(5, 2).filter((inp) => openHeats(inp).length <= 7),
        (inp) => {
          const res = runMatchingEngine(inp);
          expectValid(inp, res);
          expect(engineObjective(inp, res)).toEqual(bruteForceBest(inp));
        },
      ),
      { numRuns: 300 },
    );
  });

  test('full lexicographic optimum equals an independent vector-cost min-cost flow', () => {
    fc.assert(
      fc.property(eventArb(25, 4), (inp) => {
        const res = runMatchingEngine(inp);
        expect(engineObjective(inp, res)).toEqual(referenceBest(inp));
      }),
      { numRuns: 150 },
    );
  });

  test('the result does not depend on input order', () => {
    fc.assert(
      fc.property(eventArb(15, 4), fc.integer({ min: 1, max: 1 << 30 }), (inp, seed) => {
        expect(runMatchingEngine(shuffledInput(inp, seed))).toEqual(runMatchingEngine(inp));
      }),
      { numRuns: 150 },
    );
  });
});

import fc from 'fast-check';
import { runMatchingEngine, type EngineInput } from '../../src/modules/matching/matching.engine.js';
import { maxCoverage } from './support/maxflow.js';
import {
  bruteForceBest,
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
  violates,
} from './support/engine-fixtures.js';

/** Previous pairs that still hold, by the test-only rules (first pair per heat). */
function stillValid(inp: EngineInput): { heatId: number; recorderId: number }[] {
  const cap = inp.maxRecordingsPerPerson ?? 3;
  const open = new Map(openHeats(inp).map((h) => [h.id, h]));
  const load = fixedLoads(inp);
  const seen = new Set<number>();
  const out: { heatId: number; recorderId: number }[] = [];
  for (const p of [...(inp.previous ?? [])].sort((a, b) => a.heatId - b.heatId || a.recorderId - b.recorderId)) {
    const h = open.get(p.heatId);
    if (seen.has(p.heatId)) continue;
    if (h && (load.get(p.recorderId) ?? 0) < cap && violates(inp, h, p.recorderId) === null) {
      seen.add(p.heatId);
      out.push(p);
    }
  }
  return out;
}

describe('re-runs with the previous pending pairs', () => {
  test('an equally good previous pair is kept rather than the lowest-id recorder', () => {
    const h = heat(1, 1, 1, 1, 10);
    const participants = [person(1, 'Seattle', 'USA'), person(2, 'Seattle', 'USA'), person(3, 'Seattle', 'USA')];
    expect(recorderOf(runEngine({ participants, heats: [h] }), h.id)).toBe(2);
    const rerun = runEngine({ participants, heats: [h], previous: [{ heatId: h.id, recorderId: 3 }] });
    expect(recorderOf(rerun, h.id)).toBe(3);
    expect(rerun.reuse).toEqual({ valid: 1, kept: 1, added: 0, dropped: [], invalid: [] });
  });

  test('a previous pair is dropped when a higher tier needs it: a same-city recorder who registered late', () => {
    const h = heat(1, 1, 1, 1, 10);
    const participants = [person(1, 'Seattle', 'USA'), person(2, 'Paris', 'France'), person(3, 'Seattle', 'USA')];
    const rerun = runEngine({ participants, heats: [h], previous: [{ heatId: h.id, recorderId: 2 }] });
    expect(recorderOf(rerun, h.id)).toBe(3);
    expect(rerun.reuse).toEqual({
      valid: 1,
      kept: 0,
      added: 1,
      dropped: [{ heatId: h.id, recorderId: 2 }],
      invalid: [],
    });
  });

  test('a previous pair is dropped when coverage needs its recorder elsewhere', () => {
    // Cap 1. Heat A was given recorder 3; a new heat B can only be recorded by 3, and A can
    // also go to 4: coverage moves A to 4.
    const A = heat(1, 1, 1, 1, 1);
    const B = heat(2, 1, 3, 1, 2);
    const R = heat(4, 1, 3, 1, 3);
    const inp = input({
      participants: [person(1), person(2), person(3), person(4)],
      heats: [A, B, R],
      fixed: [{ heatId: R.id, recorderId: 1 }],
      forbidden: [{ heatId: A.id, recorderId: 2 }],
      previous: [{ heatId: A.id, recorderId: 3 }],
      maxRecordingsPerPerson: 1,
    });
    const res = runMatchingEngine(inp);
    expect(res.assignments).toEqual([
      { heatId: 1, recorderId: 4 },
      { heatId: 2, recorderId: 3 },
    ]);
    expect(res.reuse.dropped).toEqual([{ heatId: 1, recorderId: 3 }]);
  });

  test('pairs that no longer hold are reported as invalid and not kept', () => {
    const h = heat(1, 1, 2, 1, 10);
    const participants = [person(1), person(2), person(3), person(4)];
    const heats = [h, heat(2, 1, 1, 1, 11), heat(4, 1, 1, 1, 12)]; // 2 and 4 now dance heat 1, the buffer of heat 2
    const res = runMatchingEngine(
      input({
        participants,
        heats,
        fixed: [{ heatId: 12, recorderId: 3 }],
        forbidden: [{ heatId: 11, recorderId: 3 }],
        previous: [
          { heatId: 10, recorderId: 2 }, // recorder busy (buffer)
          { heatId: 11, recorderId: 3 }, // rejected since
          { heatId: 12, recorderId: 1 }, // heat accepted with another recorder
          { heatId: 99, recorderId: 1 }, // heat deleted
          { heatId: 10, recorderId: 9 }, // recorder left the event
        ],
      }),
    );
    expect(res.reuse.valid).toBe(0);
    expect(res.reuse.invalid).toEqual([
      { heatId: 10, recorderId: 2 },
      { heatId: 10, recorderId: 9 },
      { heatId: 11, recorderId: 3 },
      { heatId: 12, recorderId: 1 },
      { heatId: 99, recorderId: 1 },
    ]);
  });

  test('property: re-running on unchanged input keeps 100 % of the pending pairs', () => {
    fc.assert(
      fc.property(eventArb(25, 4), (inp) => {
        const first = runMatchingEngine(inp);
        const again = runMatchingEngine({ ...inp, previous: first.assignments });
        expect(again.assignments).toEqual(first.assignments);
        const n = first.assignments.length;
        expect(again.reuse).toEqual({ valid: n, kept: n, added: 0, dropped: [], invalid: [] });
      }),
      { numRuns: 200 },
    );
  });

  test('property: with previous pairs coverage still equals the independent max flow, the higher tiers do not move, and changes are fewest', () => {
    fc.assert(
      fc.property(eventArb(25, 4, true), (inp) => {
        const withPrevious = runMatchingEngine(inp);
        const without = runMatchingEngine({ ...inp, previous: undefined });
        expectValid(inp, withPrevious);
        expect(withPrevious.stats.covered).toBe(maxCoverage(inp));
        expect(without.stats.covered).toBe(maxCoverage(inp));
        const objective = engineObjective(inp, withPrevious);
        expect(objective).toEqual(referenceBest(inp)); // six tiers, the last one = changes
        expect(objective.slice(0, 5)).toEqual(engineObjective(inp, without).slice(0, 5));
      }),
      { numRuns: 150 },
    );
  });

  test('property: fewest changes equals exhaustive search on tiny events', () => {
    fc.assert(
      fc.property(
        eventArb(5, 2, true).filter((inp) => openHeats(inp).length <= 7),
        (inp) => {
          expect(engineObjective(inp, runMatchingEngine(inp))).toEqual(bruteForceBest(inp));
        },
      ),
      { numRuns: 300 },
    );
  });

  test('property: reuse accounting agrees with an independent validity check', () => {
    fc.assert(
      fc.property(eventArb(25, 4, true), (inp) => {
        const res = runMatchingEngine(inp);
        const valid = stillValid(inp);
        const chosen = new Set(res.assignments.map((a) => `${a.heatId}/${a.recorderId}`));
        const kept = valid.filter((p) => chosen.has(`${p.heatId}/${p.recorderId}`));
        expect(res.reuse.valid).toBe(valid.length);
        expect(res.reuse.kept).toBe(kept.length);
        expect(res.reuse.added).toBe(res.assignments.length - kept.length);
        expect(res.reuse.dropped).toEqual(valid.filter((p) => !chosen.has(`${p.heatId}/${p.recorderId}`)));
        expect(res.reuse.invalid.length).toBe((inp.previous ?? []).length - valid.length);
      }),
      { numRuns: 150 },
    );
  });

  test('property: the result with previous pairs does not depend on input order', () => {
    fc.assert(
      fc.property(eventArb(15, 4, true), fc.integer({ min: 1, max: 1 << 30 }), (inp, seed) => {
        expect(runMatchingEngine(shuffledInput(inp, seed))).toEqual(runMatchingEngine(inp));
      }),
      { numRuns: 100 },
    );
  });
});

import fc from 'fast-check';
import {
  runMatchingEngine,
  type EngineHeat,
  type EngineInput,
  type EngineResult,
  type UnfilledReason,
} from '../../src/modules/matching/matching.engine.js';
import { eventArb, fixedLoads, heat, input, person, reasonOf, runEngine, sameSlot } from './support/engine-fixtures.js';

/** The documented reason, recomputed from the test-only statement of the rules. */
function expectedReason(inp: EngineInput, res: EngineResult, h: EngineHeat): UnfilledReason {
  const cap = inp.maxRecordingsPerPerson ?? 3;
  const others = inp.participants.filter((p) => p.userId !== h.userId);
  const dancesThen = (userId: number, sameDivisionOnly: boolean) =>
    inp.heats.some(
      (own) =>
        own.userId === userId &&
        own.competitionTypeId === h.competitionTypeId &&
        (sameDivisionOnly ? own.divisionId === h.divisionId : sameSlot(inp.slots, own.divisionId, h.divisionId)) &&
        (own.heatNumber === h.heatNumber || own.heatNumber + 1 === h.heatNumber),
    );
  if (others.length === 0) return 'NO_OTHER_PARTICIPANT';
  if (others.every((p) => dancesThen(p.userId, true))) return 'ALL_CANDIDATES_DANCING';
  if (others.every((p) => dancesThen(p.userId, false))) return 'SLOT_CONFLICT';
  const free = others.filter((p) => !dancesThen(p.userId, false));
  const candidates = free.filter((p) => !inp.forbidden.some((f) => f.heatId === h.id && f.recorderId === p.userId));
  if (candidates.length === 0) return 'ALL_CANDIDATES_REJECTED';
  const load = fixedLoads(inp);
  for (const a of res.assignments) load.set(a.recorderId, (load.get(a.recorderId) ?? 0) + 1);
  expect(candidates.filter((p) => (load.get(p.userId) ?? 0) < cap)).toEqual([]); // maximal coverage
  return candidates.every((p) => p.optOut) ? 'ONLY_OPTED_OUT_AT_CAP' : 'ALL_CANDIDATES_AT_CAP';
}

describe('a reason for every heat left without a recorder', () => {
  test('NO_OTHER_PARTICIPANT: the dancer is alone at the event', () => {
    const h = heat(1, 1, 1);
    const res = runEngine({ participants: [person(1)], heats: [h] });
    expect(res.unfilled).toEqual([{ heatId: h.id, reason: 'NO_OTHER_PARTICIPANT' }]);
  });

  test('ALL_CANDIDATES_DANCING: everybody else dances that heat or the one right before, in the same division', () => {
    const mine = heat(1, 1, 2);
    const res = runMatchingEngine(
      input({ participants: [person(1), person(2), person(3)], heats: [mine, heat(2, 1, 2), heat(3, 1, 1)] }),
    );
    expect(reasonOf(res, mine.id)).toBe('ALL_CANDIDATES_DANCING');
  });

  test('SLOT_CONFLICT: everybody else is busy, someone only because the schedule shares the slot with another division', () => {
    const mine = heat(1, 1, 1);
    const participants = [person(1), person(2), person(3)];
    const heats = [mine, heat(2, 1, 1), heat(3, 2, 1)];
    const slotted = runEngine({ participants, heats, slots: [{ order: 1, divisionIds: [1, 2] }] });
    expect(reasonOf(slotted, mine.id)).toBe('SLOT_CONFLICT');
    // Without the shared slot, 3 is free and records the heat.
    expect(runEngine({ participants, heats }).unassigned).not.toContain(mine.id);
  });

  test('ALL_CANDIDATES_REJECTED: every free participant has rejected the heat', () => {
    const mine = heat(1, 1, 1);
    const res = runMatchingEngine(
      input({
        participants: [person(1), person(2), person(3), person(4)],
        heats: [mine, heat(4, 1, 1)],
        forbidden: [
          { heatId: mine.id, recorderId: 2 },
          { heatId: mine.id, recorderId: 3 },
        ],
      }),
    );
    expect(reasonOf(res, mine.id)).toBe('ALL_CANDIDATES_REJECTED');
  });

  test('ONLY_OPTED_OUT_AT_CAP: the only free candidates opted out and record the maximum', () => {
    // Cap 1: dancers 1 and 2 share a heat, 3 (opted out) is the only one free.
    const a = heat(1, 1, 1);
    const b = heat(2, 1, 1);
    const res = runMatchingEngine(
      input({
        participants: [person(1), person(2), person(3, null, null, true)],
        heats: [a, b],
        maxRecordingsPerPerson: 1,
      }),
    );
    expect(res.stats.covered).toBe(1);
    expect(res.unfilled).toEqual([{ heatId: res.unassigned[0], reason: 'ONLY_OPTED_OUT_AT_CAP' }]);
  });

  test('ALL_CANDIDATES_AT_CAP: every free candidate records the maximum, accepted recordings included', () => {
    const a = heat(1, 1, 1);
    const b = heat(2, 1, 1);
    const c = heat(5, 1, 1);
    const res = runMatchingEngine(
      input({
        participants: [person(1), person(2), person(5), person(3), person(4, null, null, true)],
        heats: [a, b, c],
        maxRecordingsPerPerson: 1,
      }),
    );
    expect(res.stats.covered).toBe(2);
    expect(res.unfilled).toEqual([{ heatId: res.unassigned[0], reason: 'ALL_CANDIDATES_AT_CAP' }]);
    // Three accepted recordings elsewhere already fill recorder 3 (default cap 3).
    const others = [heat(6, 2, 1, 1, 901), heat(7, 2, 1, 1, 902), heat(8, 2, 1, 1, 903)];
    const full = runMatchingEngine(
      input({
        participants: [person(1), person(2), person(3), person(6), person(7), person(8)],
        heats: [a, b, ...others],
        slots: [{ order: 1, divisionIds: [1, 2] }],
        fixed: others.map((h) => ({ heatId: h.id, recorderId: 3 })),
      }),
    );
    expect(full.unfilled.map((u) => u.reason)).toEqual(['ALL_CANDIDATES_AT_CAP', 'ALL_CANDIDATES_AT_CAP']);
  });

  test('property: every unfilled heat has exactly one reason, the documented one', () => {
    fc.assert(
      fc.property(eventArb(25, 4), (inp) => {
        const res = runMatchingEngine(inp);
        expect(res.unfilled.map((u) => u.heatId)).toEqual(res.unassigned);
        const byId = new Map(inp.heats.map((h) => [h.id, h]));
        for (const u of res.unfilled) expect(u.reason).toBe(expectedReason(inp, res, byId.get(u.heatId)!));
      }),
      { numRuns: 300 },
    );
  });
});

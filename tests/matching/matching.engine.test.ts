import fc from 'fast-check';
import {
  buildSlotMap,
  runMatchingEngine,
  timeKey,
  type EngineHeat,
  type EngineInput,
  type EngineParticipant,
  type EngineResult,
  type ScheduleSlot,
} from '../../src/modules/matching/matching.engine.js';
import { maxCoverage } from './support/maxflow.js';

// ---------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------

let nextHeatId = 1;
function heat(userId: number, divisionId: number, heatNumber: number, competitionTypeId = 1, id?: number): EngineHeat {
  return { id: id ?? nextHeatId++, userId, divisionId, competitionTypeId, heatNumber, role: null };
}
function person(userId: number, city: string | null = null, country: string | null = null, optOut = false): EngineParticipant {
  return { userId, city, country, optOut };
}
function input(partial: Partial<EngineInput> & Pick<EngineInput, 'participants' | 'heats'>): EngineInput {
  return { slots: null, fixed: [], forbidden: [], ...partial };
}
function recorderOf(result: EngineResult, heatId: number): number | undefined {
  return result.assignments.find((a) => a.heatId === heatId)?.recorderId;
}

/** Third, test-only statement of the rules (straight from the spec wording). */
function sameSlot(slots: ScheduleSlot[] | null, a: number, b: number): boolean {
  return a === b || (slots ?? []).some((s) => s.divisionIds.includes(a) && s.divisionIds.includes(b));
}
function violates(inp: EngineInput, h: EngineHeat, recorderId: number): string | null {
  if (recorderId === h.userId) return 'records own heat';
  if (!inp.participants.some((p) => p.userId === recorderId)) return 'recorder is not a participant';
  if (inp.forbidden.some((f) => f.heatId === h.id && f.recorderId === recorderId)) return 'rejected pair';
  for (const own of inp.heats.filter((x) => x.userId === recorderId)) {
    if (own.competitionTypeId !== h.competitionTypeId || !sameSlot(inp.slots, own.divisionId, h.divisionId)) continue;
    if (own.heatNumber === h.heatNumber) return 'collision';
    if (own.heatNumber + 1 === h.heatNumber) return 'buffer';
  }
  return null;
}
const norm = (s: string | null) => (s === null || s.trim() === '' ? null : s.trim().toLowerCase());
/** 0 same city, 1 same country, 2 other. */
function cls(inp: EngineInput, dancerId: number, recorderId: number): number {
  const d = inp.participants.find((p) => p.userId === dancerId);
  const r = inp.participants.find((p) => p.userId === recorderId)!;
  if (d && norm(d.city) !== null && norm(d.city) === norm(r.city)) return 0;
  if (d && norm(d.country) !== null && norm(d.country) === norm(r.country)) return 1;
  return 2;
}
function fixedLoads(inp: EngineInput): Map<number, number> {
  const m = new Map<number, number>();
  const seen = new Set<string>();
  for (const f of inp.fixed) {
    if (seen.has(`${f.heatId}/${f.recorderId}`)) continue;
    seen.add(`${f.heatId}/${f.recorderId}`);
    m.set(f.recorderId, (m.get(f.recorderId) ?? 0) + 1);
  }
  return m;
}

/**
 * Objective vector of a set of new assignments, in "smaller is better" form:
 * [-covered, opt-out uses, -same city, -same country, load cost], load cost = sum over new
 * recordings of (index of that recording for the person - 1), accepted ones counted first.
 */
function objective(inp: EngineInput, pairs: { heatId: number; recorderId: number }[]): number[] {
  const load = fixedLoads(inp);
  let opt = 0;
  let city = 0;
  let country = 0;
  let loadCost = 0;
  for (const p of pairs) {
    const h = inp.heats.find((x) => x.id === p.heatId)!;
    const c = cls(inp, h.userId, p.recorderId);
    if (c === 0) city++;
    if (c === 1) country++;
    if (inp.participants.find((x) => x.userId === p.recorderId)!.optOut) opt++;
    const l = load.get(p.recorderId) ?? 0;
    loadCost += l;
    load.set(p.recorderId, l + 1);
  }
  return [-pairs.length, opt, -city, -country, loadCost];
}

/** Eligible recorders of an open heat, by the test-only rules, with room left. */
function candidates(inp: EngineInput, h: EngineHeat, cap: number): number[] {
  const load = fixedLoads(inp);
  return inp.participants
    .map((p) => p.userId)
    .filter((r) => (load.get(r) ?? 0) < cap && violates(inp, h, r) === null)
    .sort((a, b) => a - b);
}
function openHeats(inp: EngineInput): EngineHeat[] {
  const fixed = new Set(inp.fixed.map((f) => f.heatId));
  return inp.heats.filter((h) => !fixed.has(h.id)).sort((a, b) => a.id - b.id);
}
const lexLess = (a: number[], b: number[]) => {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] < b[i];
  return false;
};

/** Exhaustive search over every assignment (tiny instances only). */
function bruteForceBest(inp: EngineInput): number[] {
  const cap = inp.maxRecordingsPerPerson ?? 3;
  const heats = openHeats(inp);
  const options = heats.map((h) => candidates(inp, h, cap));
  const load = fixedLoads(inp);
  let best: number[] | null = null;
  const chosen: { heatId: number; recorderId: number }[] = [];
  const rec = (i: number) => {
    if (i === heats.length) {
      const v = objective(inp, chosen);
      if (best === null || lexLess(v, best)) best = v;
      return;
    }
    rec(i + 1); // heat i stays uncovered
    for (const r of options[i]) {
      if ((load.get(r) ?? 0) >= cap) continue;
      load.set(r, (load.get(r) ?? 0) + 1);
      chosen.push({ heatId: heats[i].id, recorderId: r });
      rec(i + 1);
      chosen.pop();
      load.set(r, load.get(r)! - 1);
    }
  };
  rec(0);
  return best!;
}

/**
 * Second, independent exact optimum: min-cost max-flow on the explicit heat -> recorder
 * graph with *vector* costs compared lexicographically (no scalar weights), one unit per
 * augmentation along a Bellman-Ford (queue-based) shortest path.
 */
function referenceBest(inp: EngineInput): number[] {
  const cap = inp.maxRecordingsPerPerson ?? 3;
  const heats = openHeats(inp);
  const people = [...inp.participants].sort((a, b) => a.userId - b.userId);
  const load = fixedLoads(inp);
  type Vec = [number, number, number, number];
  const zero: Vec = [0, 0, 0, 0];
  const add = (a: Vec, b: Vec): Vec => [a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3]];
  const neg = (a: Vec): Vec => [-a[0], -a[1], -a[2], -a[3]];
  const less = (a: Vec, b: Vec) => lexLess(a, b);
  const to: number[] = [];
  const capa: number[] = [];
  const cost: Vec[] = [];
  const adj: number[][] = [];
  const n = 2 + heats.length + people.length;
  for (let i = 0; i < n; i++) adj.push([]);
  const edge = (u: number, v: number, c: number, w: Vec) => {
    adj[u].push(to.length);
    to.push(v), capa.push(c), cost.push(w);
    adj[v].push(to.length);
    to.push(u), capa.push(0), cost.push(neg(w));
  };
  const S = 0;
  const T = 1;
  heats.forEach((h, i) => {
    edge(S, 2 + i, 1, zero);
    for (const r of candidates(inp, h, cap)) {
      const c = cls(inp, h.userId, r);
      edge(2 + i, 2 + heats.length + people.findIndex((p) => p.userId === r), 1, [0, c >= 1 ? 1 : 0, c === 2 ? 1 : 0, 0]);
    }
  });
  people.forEach((p, i) => {
    const f = load.get(p.userId) ?? 0;
    for (let k = f + 1; k <= cap; k++) edge(2 + heats.length + i, T, 1, [p.optOut ? 1 : 0, 0, 0, k - 1]);
  });
  let flow = 0;
  let total: Vec = zero;
  for (;;) {
    const dist: (Vec | null)[] = new Array(n).fill(null);
    const via = new Array<number>(n).fill(-1);
    const inQueue = new Array<boolean>(n).fill(false);
    dist[S] = zero;
    const queue = [S];
    while (queue.length) {
      const u = queue.shift()!;
      inQueue[u] = false;
      for (const e of adj[u]) {
        if (capa[e] <= 0) continue;
        const nd = add(dist[u]!, cost[e]);
        if (dist[to[e]] === null || less(nd, dist[to[e]]!)) {
          dist[to[e]] = nd;
          via[to[e]] = e;
          if (!inQueue[to[e]]) (inQueue[to[e]] = true), queue.push(to[e]);
        }
      }
    }
    if (dist[T] === null) break;
    for (let v = T; v !== S; v = to[via[v] ^ 1]) {
      capa[via[v]]--;
      capa[via[v] ^ 1]++;
    }
    flow++;
    total = add(total, dist[T]!);
  }
  // Convert to the objective() form: -covered, opt, -sameCity, -sameCountry, load.
  const notCity = total[1];
  const other = total[2];
  return [-flow, total[0], -(flow - notCity), -(notCity - other), total[3]];
}

/** Checks rules 1, 2, 4, rejected pairs, not-self, fixed heats untouched, partition. */
function expectValid(inp: EngineInput, result: EngineResult): void {
  const cap = inp.maxRecordingsPerPerson ?? 3;
  const open = openHeats(inp);
  const heatById = new Map(inp.heats.map((h) => [h.id, h]));
  const load = fixedLoads(inp);
  for (const a of result.assignments) {
    const h = heatById.get(a.heatId);
    expect(h).toBeDefined();
    expect(inp.fixed.some((f) => f.heatId === a.heatId)).toBe(false);
    expect(violates(inp, h!, a.recorderId)).toBeNull();
    load.set(a.recorderId, (load.get(a.recorderId) ?? 0) + 1);
  }
  for (const a of result.assignments) expect(load.get(a.recorderId)!).toBeLessThanOrEqual(cap);
  const ids = [...result.assignments.map((a) => a.heatId), ...result.unassigned].sort((a, b) => a - b);
  expect(ids).toEqual(open.map((h) => h.id));
  expect(result.assignments.map((a) => a.heatId)).toEqual([...result.assignments.map((a) => a.heatId)].sort((a, b) => a - b));
  expect(result.unassigned).toEqual([...result.unassigned].sort((a, b) => a - b));
  expect(result.stats.heats).toBe(open.length);
  expect(result.stats.covered).toBe(result.assignments.length);
}

function engineObjective(inp: EngineInput, result: EngineResult): number[] {
  const v = objective(inp, result.assignments);
  // The engine's own counters agree with the independent recount.
  expect([-result.stats.covered, result.stats.optOutUses, -result.stats.sameCity, -result.stats.sameCountry]).toEqual(v.slice(0, 4));
  return v;
}

// Seeded shuffle for the determinism checks.
function shuffled<T>(items: T[], seed: number): T[] {
  const out = [...items];
  let s = seed >>> 0 || 1;
  for (let i = out.length - 1; i > 0; i--) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}
function shuffledInput(inp: EngineInput, seed: number): EngineInput {
  return {
    ...inp,
    participants: shuffled(inp.participants, seed),
    heats: shuffled(inp.heats, seed + 1),
    fixed: shuffled(inp.fixed, seed + 2),
    forbidden: shuffled(inp.forbidden, seed + 3),
    slots: inp.slots === null ? null : shuffled(inp.slots, seed + 4).map((s) => ({ ...s, divisionIds: shuffled(s.divisionIds, seed + 5) })),
  };
}

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
    const k = (divisionId: number, heatNumber = 1, competitionTypeId = 1) => timeKey({ divisionId, heatNumber, competitionTypeId }, slotOf);
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
      participants: [person(1, 'Seattle', 'USA'), person(2, 'Seattle', 'USA'), person(3, 'Seattle', 'USA'), person(4, 'Berlin', 'Germany')],
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
    expect(recorderOf(runMatchingEngine(input({ participants, heats, slots: null })), h.id)).toBe(2);
    expect(recorderOf(runMatchingEngine(input({ participants, heats, slots: [] })), h.id)).toBe(2);
    // With divisions 1 and 2 in one slot, recorder 2 is busy: only 3 remains.
    const slotted = input({ participants, heats, slots: [{ order: 1, divisionIds: [1, 2] }] });
    const res = runMatchingEngine(slotted);
    expect(recorderOf(res, h.id)).toBe(3);
    expectValid(slotted, res);
    // A slot that groups other divisions changes nothing.
    expect(recorderOf(runMatchingEngine(input({ participants, heats, slots: [{ order: 1, divisionIds: [2, 3] }] })), h.id)).toBe(2);
  });

  test('rule 2 buffer: no recording of heat n+1 of the same slot and type, everything else is fine', () => {
    const participants = [person(1, 'Seattle', 'USA'), person(2, 'Seattle', 'USA'), person(3, 'Paris', 'France')];
    const slots = [{ order: 1, divisionIds: [1, 2] }];
    const target = heat(1, 1, 4);
    const run = (own: EngineHeat) => recorderOf(runMatchingEngine(input({ participants, heats: [target, own], slots })), target.id);
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
    const participants = [person(100, 'Seattle', 'USA'), person(101, 'Berlin', 'Germany'), person(102, 'Berlin', 'Germany')];
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
    const rerun = input({ participants, heats, fixed: [{ heatId: 203, recorderId: 100 }, { heatId: 204, recorderId: 100 }] });
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
    const participants = [person(1, 'Seattle', 'USA'), person(2, 'Seattle', 'USA', true), person(3, 'Melbourne', 'Australia')];
    // The opt-out recorder is in the dancer's city; the other one is far away: still the other.
    const res = runMatchingEngine(input({ participants, heats: [h1] }));
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
    const pick = (...ps: EngineParticipant[]) => recorderOf(runMatchingEngine(input({ participants: [dancer, ...ps], heats: [h] })), h.id);
    expect(pick(anyone, country, city, noLoc)).toBe(2);
    expect(pick(anyone, country, noLoc)).toBe(3);
    const r = runMatchingEngine(input({ participants: [dancer, anyone, country, city], heats: [h] }));
    expect(r.stats).toMatchObject({ sameCity: 1, sameCountry: 0 });
    // null never equals null: a dancer without location has no preferred recorder.
    const lost = heat(6, 1, 2);
    const res = runMatchingEngine(input({ participants: [person(6, null, null), person(7, null, null)], heats: [lost] }));
    expect(res.stats).toMatchObject({ covered: 1, sameCity: 0, sameCountry: 0 });
  });

  test('rejected pairs are never proposed again', () => {
    const h = heat(1, 1, 1);
    const participants = [person(1, 'Seattle', 'USA'), person(2, 'Seattle', 'USA'), person(3, 'Seattle', 'USA'), person(4, 'Paris', 'France')];
    const first = runMatchingEngine(input({ participants, heats: [h] }));
    const r1 = recorderOf(first, h.id)!;
    expect([2, 3]).toContain(r1);
    const second = runMatchingEngine(input({ participants, heats: [h], forbidden: [{ heatId: h.id, recorderId: r1 }] }));
    const r2 = recorderOf(second, h.id)!;
    expect(r2).not.toBe(r1);
    expect([2, 3]).toContain(r2);
    const third = runMatchingEngine(input({ participants, heats: [h], forbidden: [{ heatId: h.id, recorderId: 2 }, { heatId: h.id, recorderId: 3 }] }));
    expect(recorderOf(third, h.id)).toBe(4);
    const none = runMatchingEngine(input({ participants, heats: [h], forbidden: [2, 3, 4].map((r) => ({ heatId: h.id, recorderId: r })) }));
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
    const one = runMatchingEngine(input({ participants: [person(1), person(2), person(3)], heats: [a, b] }));
    expect(one.assignments).toEqual([{ heatId: a.id, recorderId: 3 }, { heatId: b.id, recorderId: 3 }]);
    // Two equally good recorders: one heat each.
    const two = runMatchingEngine(input({ participants: [person(1), person(2), person(3), person(4)], heats: [a, b] }));
    expect(new Set(two.assignments.map((x) => x.recorderId)).size).toBe(2);
    expect(two.stats.maxLoad).toBe(1);
  });

  test('deterministic: the same result for shuffled input', () => {
    const participants: EngineParticipant[] = [];
    const heats: EngineHeat[] = [];
    const cities = ['Seattle', 'Portland', 'Paris', null];
    for (let u = 1; u <= 30; u++) {
      participants.push(person(u, cities[u % 4], u % 4 === 2 ? 'France' : 'USA', u % 7 === 0));
      for (let j = 0; j < (u % 4) + 1; j++) heats.push(heat(u, 1 + ((u + j) % 3), 1 + ((u * 3 + j) % 4), 1 + (j % 2), 5000 + u * 10 + j));
    }
    const inp = input({
      participants,
      heats,
      slots: [{ order: 1, divisionIds: [1, 2] }],
      fixed: [{ heatId: 5010, recorderId: 5 }],
      forbidden: [{ heatId: 5020, recorderId: 3 }, { heatId: 5030, recorderId: 9 }],
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
      participants: [person(1, 'Seattle', 'USA'), person(2, 'Portland', 'USA'), person(3, 'Seattle', 'USA'), person(4, 'Denver', 'USA')],
      heats: [A, B, R],
      fixed: [{ heatId: R.id, recorderId: 1 }],
      forbidden: [{ heatId: A.id, recorderId: 2 }],
      maxRecordingsPerPerson: 1,
    });
    // Greedy: heats by id, best candidate (city > country > other, then id) with room left.
    const load = fixedLoads(inp);
    let greedyCovered = 0;
    for (const h of openHeats(inp)) {
      const options = candidates(inp, h, 1).filter((r) => (load.get(r) ?? 0) < 1);
      options.sort((x, y) => cls(inp, h.userId, x) - cls(inp, h.userId, y) || x - y);
      if (options.length) {
        load.set(options[0], 1);
        greedyCovered++;
      }
    }
    expect(greedyCovered).toBe(1);
    const res = runMatchingEngine(inp);
    expect(res.stats.covered).toBe(2);
    expect(res.assignments).toEqual([{ heatId: 1, recorderId: 4 }, { heatId: 2, recorderId: 3 }]);
    expect(maxCoverage(inp)).toBe(2);
    expectValid(inp, res);
  });

  test('edge cases: no heats, no participants, nobody free, cap 0', () => {
    expect(runMatchingEngine(input({ participants: [], heats: [] }))).toEqual({
      assignments: [],
      unassigned: [],
      stats: { heats: 0, covered: 0, optOutUses: 0, sameCity: 0, sameCountry: 0, maxLoad: 0 },
      unfilled: [],
      reuse: { valid: 0, kept: 0, added: 0, dropped: [], invalid: [] },
    });
    const h = heat(1, 1, 1);
    expect(runMatchingEngine(input({ participants: [person(1)], heats: [h] })).unassigned).toEqual([h.id]);
    expect(runMatchingEngine(input({ participants: [], heats: [h] })).unassigned).toEqual([h.id]);
    expect(runMatchingEngine(input({ participants: [person(1), person(2)], heats: [h], maxRecordingsPerPerson: 0 })).unassigned).toEqual([h.id]);
    expect(() => runMatchingEngine(input({ participants: [person(1)], heats: [h, { ...h }] }))).toThrow(/duplicate heat/);
  });
});

// ---------------------------------------------------------------------------------------
// Property tests
// ---------------------------------------------------------------------------------------

const CITY_POOL = ['Seattle', ' seattle', 'Portland', 'Berlin', 'Paris', null];
const COUNTRY_POOL = ['USA', 'usa ', 'Germany', 'France', null];

/** Random small events: few divisions / heat numbers so that collisions are frequent. */
function eventArb(maxPeople: number, maxHeatsEach: number): fc.Arbitrary<EngineInput> {
  return fc
    .record({
      people: fc.array(
        fc.record({
          city: fc.integer({ min: 0, max: CITY_POOL.length - 1 }),
          country: fc.integer({ min: 0, max: COUNTRY_POOL.length - 1 }),
          optOut: fc.integer({ min: 0, max: 3 }).map((x) => x === 0),
          heats: fc.array(fc.record({ div: fc.integer({ min: 1, max: 4 }), type: fc.integer({ min: 1, max: 2 }), num: fc.integer({ min: 1, max: 4 }) }), {
            maxLength: maxHeatsEach,
          }),
        }),
        { minLength: 1, maxLength: maxPeople, size: 'max' },
      ),
      slotGroups: fc.option(fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 4, maxLength: 4 })),
      fixedPicks: fc.array(fc.record({ heat: fc.nat(), recorder: fc.nat() }), { maxLength: 6, size: 'max' }),
      forbiddenPicks: fc.array(fc.record({ heat: fc.nat(), recorder: fc.nat() }), { maxLength: 12, size: 'max' }),
      cap: fc.integer({ min: 1, max: 3 }),
      idBase: fc.integer({ min: 1, max: 1000 }),
    })
    .map(({ people, slotGroups, fixedPicks, forbiddenPicks, cap, idBase }) => {
      const participants = people.map((p, i) => person(idBase + i * 7, CITY_POOL[p.city], COUNTRY_POOL[p.country], p.optOut));
      const heats: EngineHeat[] = [];
      let id = 1;
      people.forEach((p, i) => {
        const seen = new Set<string>();
        for (const h of p.heats) {
          const k = `${h.div}/${h.type}/${h.num}`;
          if (seen.has(k)) continue;
          seen.add(k);
          heats.push({ id: id++ * 3, userId: participants[i].userId, divisionId: h.div, competitionTypeId: h.type, heatNumber: h.num, role: null });
        }
      });
      let slots: ScheduleSlot[] | null = null;
      if (slotGroups) {
        slots = [];
        for (let g = 0; g < 4; g++) {
          const divisionIds = [1, 2, 3, 4].filter((_, d) => slotGroups[d] === g);
          if (divisionIds.length) slots.push({ order: g + 1, divisionIds });
        }
      }
      const fixed: EngineInput['fixed'] = [];
      const fixedHeat = new Set<number>();
      if (heats.length)
        for (const f of fixedPicks) {
          const h = heats[f.heat % heats.length];
          if (fixedHeat.has(h.id)) continue;
          fixedHeat.add(h.id);
          fixed.push({ heatId: h.id, recorderId: participants[f.recorder % participants.length].userId });
        }
      const forbidden = heats.length
        ? forbiddenPicks.map((f) => ({ heatId: heats[f.heat % heats.length].id, recorderId: participants[f.recorder % participants.length].userId }))
        : [];
      return { participants, heats, slots, fixed, forbidden, maxRecordingsPerPerson: cap };
    });
}

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

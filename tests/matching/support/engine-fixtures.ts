/**
 * Builders, a test-only statement of the matching rules and independent optima for the
 * engine tests (tests/matching/*.test.ts).
 */
import fc from 'fast-check';
import {
  runMatchingEngine,
  type EngineHeat,
  type EngineInput,
  type EngineParticipant,
  type EngineResult,
  type ScheduleSlot,
  type UnfilledReason,
} from '../../../src/modules/matching/matching.engine.js';
// ---------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------

export let nextHeatId = 1;
export function heat(
  userId: number,
  divisionId: number,
  heatNumber: number,
  competitionTypeId = 1,
  id?: number,
): EngineHeat {
  return { id: id ?? nextHeatId++, userId, divisionId, competitionTypeId, heatNumber, role: null };
}
export function person(
  userId: number,
  city: string | null = null,
  country: string | null = null,
  optOut = false,
): EngineParticipant {
  return { userId, city, country, optOut };
}
/** person(userId) with any participant field overridden (balance, maxRecordings, absent, ...). */
export function participant(
  userId: number,
  overrides: Partial<Omit<EngineParticipant, 'userId'>> = {},
): EngineParticipant {
  return { ...person(userId), ...overrides };
}
export function input(partial: Partial<EngineInput> & Pick<EngineInput, 'participants' | 'heats'>): EngineInput {
  return { slots: null, fixed: [], forbidden: [], ...partial };
}
/** The engine on input(partial). */
export function runEngine(partial: Partial<EngineInput> & Pick<EngineInput, 'participants' | 'heats'>): EngineResult {
  return runMatchingEngine(input(partial));
}
export function recorderOf(result: EngineResult, heatId: number): number | undefined {
  return result.assignments.find((a) => a.heatId === heatId)?.recorderId;
}
export function reasonOf(result: EngineResult, heatId: number): UnfilledReason | undefined {
  return result.unfilled.find((u) => u.heatId === heatId)?.reason;
}

/** Third, test-only statement of the rules (straight from the spec wording). */
export function sameSlot(slots: ScheduleSlot[] | null, a: number, b: number): boolean {
  return a === b || (slots ?? []).some((s) => s.divisionIds.includes(a) && s.divisionIds.includes(b));
}
export function violates(inp: EngineInput, h: EngineHeat, recorderId: number, forPin = false): string | null {
  if (recorderId === h.userId) return 'records own heat';
  const p = inp.participants.find((x) => x.userId === recorderId);
  if (!p) return 'recorder is not a participant';
  if (p.absent) return 'absent';
  if (!forPin && p.optOut && inp.optOutMode === 'exclude') return 'opted out (exclude)';
  if (inp.forbidden.some((f) => f.heatId === h.id && f.recorderId === recorderId)) return 'rejected pair';
  const before = inp.bufferBefore ?? 0;
  const after = inp.bufferAfter ?? 1;
  for (const own of inp.heats.filter((x) => x.userId === recorderId)) {
    if (own.competitionTypeId !== h.competitionTypeId || !sameSlot(inp.slots, own.divisionId, h.divisionId)) continue;
    if (own.heatNumber === h.heatNumber) return 'collision';
    if (h.heatNumber >= own.heatNumber - before && h.heatNumber <= own.heatNumber + after) return 'buffer';
  }
  for (const e of p.unavailable ?? [])
    if (
      e.competitionTypeId === h.competitionTypeId &&
      e.heatNumber === h.heatNumber &&
      (e.divisionId === null || sameSlot(inp.slots, e.divisionId, h.divisionId))
    )
      return 'unavailable';
  return null;
}
/** A person's cap in a run: min(personal, event). */
export function capOf(inp: EngineInput, userId: number): number {
  const cap = inp.maxRecordingsPerPerson ?? 3;
  const p = inp.participants.find((x) => x.userId === userId);
  return Math.min(p?.maxRecordings ?? cap, cap);
}
/** The pins that hold (one per heat, lowest recorder id), by the test-only rules. */
export function heldPins(inp: EngineInput): { heatId: number; recorderId: number }[] {
  const accepted = new Set(inp.fixed.map((f) => f.heatId));
  const taken = new Set<number>();
  const out: { heatId: number; recorderId: number }[] = [];
  for (const pin of [...(inp.pinned ?? [])].sort((a, b) => a.heatId - b.heatId || a.recorderId - b.recorderId)) {
    const h = inp.heats.find((x) => x.id === pin.heatId);
    if (!h || accepted.has(h.id) || taken.has(h.id) || violates(inp, h, pin.recorderId, true) !== null) continue;
    taken.add(h.id);
    out.push(pin);
  }
  return out;
}
export const norm = (s: string | null) => (s === null || s.trim() === '' ? null : s.trim().toLowerCase());
/** 0 same city, 1 same country, 2 other. */
export function cls(inp: EngineInput, dancerId: number, recorderId: number): number {
  const d = inp.participants.find((p) => p.userId === dancerId);
  const r = inp.participants.find((p) => p.userId === recorderId)!;
  if (d && norm(d.city) !== null && norm(d.city) === norm(r.city)) return 0;
  if (d && norm(d.country) !== null && norm(d.country) === norm(r.country)) return 1;
  return 2;
}
export function fixedLoads(inp: EngineInput): Map<number, number> {
  const m = new Map<number, number>();
  const seen = new Set<string>();
  for (const f of [...inp.fixed, ...heldPins(inp)]) {
    if (seen.has(`${f.heatId}/${f.recorderId}`)) continue;
    seen.add(`${f.heatId}/${f.recorderId}`);
    m.set(f.recorderId, (m.get(f.recorderId) ?? 0) + 1);
  }
  return m;
}

/**
 * Objective vector of a set of new assignments, in "smaller is better" form:
 * [-covered, opt-out uses, -same city, -same country, -sum of recorder balances, load cost,
 * changes], load cost = sum over new recordings of (index of that recording for the person
 * - 1), accepted and pinned ones counted first.
 */
export function objective(inp: EngineInput, pairs: { heatId: number; recorderId: number }[]): number[] {
  const load = fixedLoads(inp);
  let opt = 0;
  let city = 0;
  let country = 0;
  let balance = 0;
  let loadCost = 0;
  const previous = new Set((inp.previous ?? []).map((x) => `${x.heatId}/${x.recorderId}`));
  let changes = 0;
  for (const p of pairs) {
    const h = inp.heats.find((x) => x.id === p.heatId)!;
    const c = cls(inp, h.userId, p.recorderId);
    if (c === 0) city++;
    if (c === 1) country++;
    const r = inp.participants.find((x) => x.userId === p.recorderId)!;
    if (r.optOut) opt++;
    balance += r.balance ?? 0;
    const l = load.get(p.recorderId) ?? 0;
    loadCost += l;
    if (!previous.has(`${p.heatId}/${p.recorderId}`)) changes++;
    load.set(p.recorderId, l + 1);
  }
  return [-pairs.length, opt, -city, -country, -balance, loadCost, changes].map((x) => x + 0); // no -0
}

/** Eligible recorders of an open heat, by the test-only rules, with room left. */
export function candidates(inp: EngineInput, h: EngineHeat): number[] {
  const load = fixedLoads(inp);
  return inp.participants
    .map((p) => p.userId)
    .filter((r) => (load.get(r) ?? 0) < capOf(inp, r) && violates(inp, h, r) === null)
    .sort((a, b) => a - b);
}
export function openHeats(inp: EngineInput): EngineHeat[] {
  const fixed = new Set([...inp.fixed, ...heldPins(inp)].map((f) => f.heatId));
  return inp.heats.filter((h) => !fixed.has(h.id)).sort((a, b) => a.id - b.id);
}
export const lexLess = (a: number[], b: number[]) => {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] < b[i];
  return false;
};

/** Exhaustive search over every assignment (tiny instances only). */
export function bruteForceBest(inp: EngineInput): number[] {
  const heats = openHeats(inp);
  const options = heats.map((h) => candidates(inp, h));
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
      if ((load.get(r) ?? 0) >= capOf(inp, r)) continue;
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
export function referenceBest(inp: EngineInput): number[] {
  const heats = openHeats(inp);
  const people = [...inp.participants].sort((a, b) => a.userId - b.userId);
  const load = fixedLoads(inp);
  type Vec = [number, number, number, number, number, number];
  const zero: Vec = [0, 0, 0, 0, 0, 0];
  const add = (a: Vec, b: Vec): Vec => [a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3], a[4] + b[4], a[5] + b[5]];
  const neg = (a: Vec): Vec => [-a[0], -a[1], -a[2], -a[3], -a[4], -a[5]];
  const previous = new Set((inp.previous ?? []).map((x) => `${x.heatId}/${x.recorderId}`));
  const less = (a: Vec, b: Vec) => lexLess(a, b);
  const to: number[] = [];
  const capa: number[] = [];
  const cost: Vec[] = [];
  const adj: number[][] = [];
  const n = 2 + heats.length + people.length;
  for (let i = 0; i < n; i++) adj.push([]);
  const edge = (u: number, v: number, c: number, w: Vec) => {
    adj[u].push(to.length);
    to.push(v);
    capa.push(c);
    cost.push(w);
    adj[v].push(to.length);
    to.push(u);
    capa.push(0);
    cost.push(neg(w));
  };
  const S = 0;
  const T = 1;
  heats.forEach((h, i) => {
    edge(S, 2 + i, 1, zero);
    for (const r of candidates(inp, h)) {
      const c = cls(inp, h.userId, r);
      const bal = people.find((p) => p.userId === r)!.balance ?? 0;
      edge(2 + i, 2 + heats.length + people.findIndex((p) => p.userId === r), 1, [
        0,
        c >= 1 ? 1 : 0,
        c === 2 ? 1 : 0,
        -bal,
        0,
        previous.has(`${h.id}/${r}`) ? 0 : 1,
      ]);
    }
  });
  people.forEach((p, i) => {
    const f = load.get(p.userId) ?? 0;
    for (let k = f + 1; k <= capOf(inp, p.userId); k++)
      edge(2 + heats.length + i, T, 1, [p.optOut ? 1 : 0, 0, 0, 0, k - 1, 0]);
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
          if (!inQueue[to[e]]) {
            inQueue[to[e]] = true;
            queue.push(to[e]);
          }
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
  // Convert to the objective() form: -covered, opt, -sameCity, -sameCountry, -balance, load, changes.
  const notCity = total[1];
  const other = total[2];
  return [-flow, total[0], -(flow - notCity), -(notCity - other), total[3], total[4], total[5]].map((x) => x + 0); // no -0
}

/** Checks rules 1, 2, 4, rejected pairs, not-self, fixed heats untouched, partition. */
export function expectValid(inp: EngineInput, result: EngineResult): void {
  const open = openHeats(inp);
  expect(result.pins.kept).toEqual(heldPins(inp));
  const heatById = new Map(inp.heats.map((h) => [h.id, h]));
  const load = fixedLoads(inp);
  for (const a of result.assignments) {
    const h = heatById.get(a.heatId);
    expect(h).toBeDefined();
    expect(inp.fixed.some((f) => f.heatId === a.heatId)).toBe(false);
    expect(result.pins.kept.some((f) => f.heatId === a.heatId)).toBe(false);
    expect(violates(inp, h!, a.recorderId)).toBeNull();
    load.set(a.recorderId, (load.get(a.recorderId) ?? 0) + 1);
  }
  for (const a of result.assignments) expect(load.get(a.recorderId)!).toBeLessThanOrEqual(capOf(inp, a.recorderId));
  const ids = [...result.assignments.map((a) => a.heatId), ...result.unassigned].sort((a, b) => a - b);
  expect(ids).toEqual(open.map((h) => h.id));
  expect(result.assignments.map((a) => a.heatId)).toEqual(
    [...result.assignments.map((a) => a.heatId)].sort((a, b) => a - b),
  );
  expect(result.unassigned).toEqual([...result.unassigned].sort((a, b) => a - b));
  expect(result.stats.heats).toBe(open.length);
  expect(result.stats.covered).toBe(result.assignments.length);
}

export function engineObjective(inp: EngineInput, result: EngineResult): number[] {
  const v = objective(inp, result.assignments);
  // The engine's own counters agree with the independent recount.
  const counters = [
    -result.stats.covered,
    result.stats.optOutUses,
    -result.stats.sameCity,
    -result.stats.sameCountry,
    -result.stats.balanceSum,
  ];
  expect(counters.map((x) => x + 0)).toEqual(v.slice(0, 5));
  return v;
}

// Seeded shuffle for the determinism checks.
export function shuffled<T>(items: T[], seed: number): T[] {
  const out = [...items];
  let s = seed >>> 0 || 1;
  for (let i = out.length - 1; i > 0; i--) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}
export function shuffledInput(inp: EngineInput, seed: number): EngineInput {
  return {
    ...inp,
    participants: shuffled(inp.participants, seed),
    heats: shuffled(inp.heats, seed + 1),
    fixed: shuffled(inp.fixed, seed + 2),
    forbidden: shuffled(inp.forbidden, seed + 3),
    ...(inp.previous ? { previous: shuffled(inp.previous, seed + 6) } : {}),
    slots:
      inp.slots === null
        ? null
        : shuffled(inp.slots, seed + 4).map((s) => ({ ...s, divisionIds: shuffled(s.divisionIds, seed + 5) })),
  };
}

// ---------------------------------------------------------------------------------------
// Property tests
// ---------------------------------------------------------------------------------------

export const CITY_POOL = ['Seattle', ' seattle', 'Portland', 'Berlin', 'Paris', null];
export const COUNTRY_POOL = ['USA', 'usa ', 'Germany', 'France', null];

/** Random small events: few divisions / heat numbers so that collisions are frequent. */
/** withPrevious: adds pending pairs of an imagined previous run (one per heat, any validity). */
export function eventArb(maxPeople: number, maxHeatsEach: number, withPrevious = false): fc.Arbitrary<EngineInput> {
  return fc
    .record({
      people: fc.array(
        fc.record({
          city: fc.integer({ min: 0, max: CITY_POOL.length - 1 }),
          country: fc.integer({ min: 0, max: COUNTRY_POOL.length - 1 }),
          optOut: fc.integer({ min: 0, max: 3 }).map((x) => x === 0),
          heats: fc.array(
            fc.record({
              div: fc.integer({ min: 1, max: 4 }),
              type: fc.integer({ min: 1, max: 2 }),
              num: fc.integer({ min: 1, max: 4 }),
            }),
            {
              maxLength: maxHeatsEach,
            },
          ),
        }),
        { minLength: 1, maxLength: maxPeople, size: 'max' },
      ),
      slotGroups: fc.option(fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 4, maxLength: 4 })),
      fixedPicks: fc.array(fc.record({ heat: fc.nat(), recorder: fc.nat() }), { maxLength: 6, size: 'max' }),
      forbiddenPicks: fc.array(fc.record({ heat: fc.nat(), recorder: fc.nat() }), { maxLength: 12, size: 'max' }),
      previousPicks: fc.array(fc.record({ heat: fc.nat(), recorder: fc.nat() }), {
        maxLength: withPrevious ? 40 : 0,
        size: 'max',
      }),
      cap: fc.integer({ min: 1, max: 3 }),
      idBase: fc.integer({ min: 1, max: 1000 }),
    })
    .map(({ people, slotGroups, fixedPicks, forbiddenPicks, previousPicks, cap, idBase }) => {
      const participants = people.map((p, i) =>
        person(idBase + i * 7, CITY_POOL[p.city], COUNTRY_POOL[p.country], p.optOut),
      );
      const heats: EngineHeat[] = [];
      let id = 1;
      people.forEach((p, i) => {
        const seen = new Set<string>();
        for (const h of p.heats) {
          const k = `${h.div}/${h.type}/${h.num}`;
          if (seen.has(k)) continue;
          seen.add(k);
          heats.push({
            id: id++ * 3,
            userId: participants[i].userId,
            divisionId: h.div,
            competitionTypeId: h.type,
            heatNumber: h.num,
            role: null,
          });
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
        ? forbiddenPicks.map((f) => ({
            heatId: heats[f.heat % heats.length].id,
            recorderId: participants[f.recorder % participants.length].userId,
          }))
        : [];
      const previous = new Map<number, number>();
      if (heats.length)
        for (const f of previousPicks)
          previous.set(heats[f.heat % heats.length].id, participants[f.recorder % participants.length].userId);
      const previousPairs = [...previous].map(([heatId, recorderId]) => ({ heatId, recorderId }));
      return {
        participants,
        heats,
        slots,
        fixed,
        forbidden,
        maxRecordingsPerPerson: cap,
        ...(withPrevious ? { previous: previousPairs } : {}),
      };
    });
}

/**
 * eventArb plus everything "fair matching for people" adds, drawn at random: buffers
 * (0-2 each), opt-out mode, per-person caps (null or 0-3), unavailable entries (with or
 * without a division), absences, balances (-3..3) and pins (any validity).
 */
export function fairEventArb(maxPeople: number, maxHeatsEach: number, withPrevious = false): fc.Arbitrary<EngineInput> {
  return fc
    .tuple(
      eventArb(maxPeople, maxHeatsEach, withPrevious),
      fc.record({
        bufferBefore: fc.integer({ min: 0, max: 2 }),
        bufferAfter: fc.integer({ min: 0, max: 2 }),
        exclude: fc.boolean(),
        people: fc.array(
          fc.record({
            maxRecordings: fc.option(fc.integer({ min: 0, max: 3 }), { freq: 2 }),
            absent: fc.integer({ min: 0, max: 6 }).map((x) => x === 0),
            balance: fc.integer({ min: -3, max: 3 }),
            unavailable: fc.array(
              fc.record({
                type: fc.integer({ min: 1, max: 2 }),
                num: fc.integer({ min: 1, max: 4 }),
                div: fc.option(fc.integer({ min: 1, max: 4 })),
              }),
              { maxLength: 2 },
            ),
          }),
          { minLength: maxPeople, maxLength: maxPeople },
        ),
        pinPicks: fc.array(fc.record({ heat: fc.nat(), recorder: fc.nat() }), { maxLength: 4 }),
      }),
    )
    .map(([base, extra]) => {
      const participants: EngineParticipant[] = base.participants.map((p, i) => {
        const x = extra.people[i];
        return {
          ...p,
          maxRecordings: x.maxRecordings,
          absent: x.absent,
          balance: x.balance,
          unavailable: x.unavailable.map((u) => ({ competitionTypeId: u.type, heatNumber: u.num, divisionId: u.div })),
        };
      });
      const pinned = base.heats.length
        ? extra.pinPicks.map((f) => ({
            heatId: base.heats[f.heat % base.heats.length].id,
            recorderId: participants[f.recorder % participants.length].userId,
          }))
        : [];
      return {
        ...base,
        participants,
        pinned,
        bufferBefore: extra.bufferBefore,
        bufferAfter: extra.bufferAfter,
        optOutMode: extra.exclude ? ('exclude' as const) : ('last' as const),
      };
    });
}

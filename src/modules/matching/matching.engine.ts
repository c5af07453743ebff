/**
 * Recording-partner matching engine (pure).
 *
 * Given the participants of an event, their declared heats, the schedule (which divisions
 * share a time slot), the history of earlier runs (accepted = fixed, rejected = forbidden
 * pairs) and optionally the pending pairs of the previous run, it proposes one recorder per
 * uncovered heat and says why each heat it cannot cover stays open.
 *
 * Business rules (docs/api.md "Recording-partner matching", docs/fair-matching.md):
 *  1. Collision: nobody records a heat while dancing one. "Same time" = same competition
 *     type, same heat number and divisions in the same slot (same division when no slot
 *     groups it). A dancer is therefore never proposed for his/her own heat.
 *  2. Buffers: nobody records heats n-bufferBefore ... n+bufferAfter of a slot/type in
 *     which he/she dances heat n (defaults 0 and 1: heat n+1 only).
 *  3. Preference: same city, then same country, then anyone (trimmed, case-insensitive;
 *     null never matches).
 *  4. At most `maxRecordingsPerPerson` (3) recordings per person, accepted and pinned ones
 *     included; a participant's own `maxRecordings` lowers his/her cap (0 = never records).
 *  5. Opt-out participants record only when nothing else works (optOutMode "last"), or
 *     never (optOutMode "exclude").
 *  Plus: rejected (heat, recorder) pairs are never proposed again; nobody records a heat an
 *  `unavailable` entry of his/hers covers; absent participants never record; pinned pairs
 *  are kept like accepted ones while they still meet rules 1, 2 and the above.
 *
 * Objective, lexicographic and exact:
 *  coverage (max) > opt-out uses (min) > same-city pairs (max) > same-country pairs (max)
 *  > sum over the new pairs of the recorder's balance (max; received - done elsewhere)
 *  > load spread (min sum over recorders of the convex cost 0+1+...+(load-1))
 *  > changes (min number of pairs that were not a still-valid previous pair)
 *  > deterministic tie-break (fixed processing order of ids).
 * With every balance equal (e.g. all 0) the balance tier is constant and the plan is the
 * one of the objective without it.
 * So a re-run keeps every still-valid previous pair unless dropping it is needed for a
 * higher tier, and re-running on unchanged input returns the same plan.
 *
 * Algorithm: min-cost max-flow on a compressed network (`MatchingNetwork`), solved by
 * `MinCostFlow` (min-cost-flow.ts); `scalarCosts` explains why the scalar weights
 * reproduce the lexicographic order exactly. Unfilled heats: matching.unfilled.ts.
 *
 * No I/O, no clock, no randomness: the result depends only on the input *set* (every
 * array is sorted by ids before use).
 */
import { INF_CAP, MinCostFlow, NetworkBuilder } from './min-cost-flow.js';
import { explainUnfilled, type UnfilledReason } from './matching.unfilled.js';

export type { UnfilledReason } from './matching.unfilled.js';
export { UNFILLED_REASONS } from './matching.unfilled.js';

export interface EngineParticipant {
  userId: number;
  city: string | null;
  country: string | null;
  optOut: boolean;
  /** Personal cap (recording preferences); undefined = the event's maxRecordingsPerPerson. */
  maxRecordings?: number | null;
  /** Heats the participant cannot record (judging, teaching, away). */
  unavailable?: UnavailableEntry[];
  /** Marked absent by an admin: never records (his/her own heats are still matched). */
  absent?: boolean;
  /** Recordings received minus recordings done at other events (fairness tier); default 0. */
  balance?: number;
}
/** Covers heat `heatNumber` of the competition type in every division (divisionId null) or in that division's slot. */
export interface UnavailableEntry {
  competitionTypeId: number;
  heatNumber: number;
  divisionId: number | null;
}
export type OptOutMode = 'last' | 'exclude';
export interface EngineHeat {
  id: number;
  userId: number;
  divisionId: number;
  competitionTypeId: number;
  heatNumber: number;
  /** Not used by the rules (two dancers of one heat may share a recorder). */
  role: string | null;
}
export interface ScheduleSlot {
  order: number;
  divisionIds: number[];
}
export interface EngineInput {
  /** Everyone at the event; every participant may record. */
  participants: EngineParticipant[];
  /** Every declared heat (each needs one recorder; also defines when people are busy). */
  heats: EngineHeat[];
  /** scheduleConfig.slots; null or [] = every division is its own slot. */
  slots: ScheduleSlot[] | null;
  /** Accepted suggestions of earlier runs: heat already covered, counts toward the cap. */
  fixed: { heatId: number; recorderId: number }[];
  /** Rejected pairs: never proposed again. */
  forbidden: { heatId: number; recorderId: number }[];
  /**
   * Pending suggestions of the previous run (optional). Pairs that no longer hold are
   * ignored (see `EngineResult.reuse.invalid`); every other one is kept unless dropping it
   * is needed to reach the optimum, and among equally good plans the fewest pairs change.
   */
  previous?: { heatId: number; recorderId: number }[];
  /** Default 3. */
  maxRecordingsPerPerson?: number;
  /** Heats before / after one's own heat one does not record (defaults 0 and 1). */
  bufferBefore?: number;
  bufferAfter?: number;
  /** "last" (default): opted-out participants record only when coverage needs them; "exclude": never. */
  optOutMode?: OptOutMode;
  /**
   * Pairs pinned by an admin (pending). A pin that still holds (heat declared and not
   * accepted, recorder a participant who is not absent, free at that time, not unavailable,
   * pair not forbidden) is kept like an accepted pair: its heat is covered and it counts
   * toward the recorder's cap. The others are reported in `EngineResult.pins.dropped`.
   */
  pinned?: { heatId: number; recorderId: number }[];
}
export interface EngineAssignment {
  heatId: number;
  recorderId: number;
}
export interface EngineResult {
  /** New assignments only (not the fixed ones), sorted by heatId. */
  assignments: EngineAssignment[];
  /** Ids of the heats (not fixed) that got no recorder, sorted. */
  unassigned: number[];
  /**
   * heats: heats that needed a recorder in this run (input heats minus fixed ones);
   * covered: assignments.length. optOutUses / sameCity / sameCountry count new assignments
   * whose recorder opted out / lives in the dancer's city / lives in the dancer's country
   * but not in the same city (so sameCity + sameCountry + others = covered).
   * maxLoad: highest number of recordings of one person, fixed ones included (0 if none).
   */
  stats: {
    heats: number;
    covered: number;
    optOutUses: number;
    sameCity: number;
    sameCountry: number;
    balanceSum: number;
    maxLoad: number;
  };
  /** One entry per unassigned heat, same order, with the reason it stays open. */
  unfilled: EngineUnfilled[];
  /** What became of `input.previous` (all zero / empty without it). */
  reuse: EngineReuse;
  /** Pins kept (covered, counted toward caps) and dropped (no longer hold), sorted by heatId. */
  pins: { kept: EngineAssignment[]; dropped: EngineAssignment[] };
}
export interface EngineUnfilled {
  heatId: number;
  reason: UnfilledReason;
}
export interface EngineReuse {
  /** Previous pairs that still hold: the heat is open, the recorder free, with room, not rejected. */
  valid: number;
  /** Valid previous pairs present in `assignments`. */
  kept: number;
  /** Assignments that were not a previous pair (assignments.length - kept). */
  added: number;
  /** Valid previous pairs left out to reach the optimum, sorted by heatId. */
  dropped: EngineAssignment[];
  /** Previous pairs that no longer hold (or a second pair for one heat), sorted by heatId. */
  invalid: EngineAssignment[];
}

export const DEFAULT_MAX_RECORDINGS_PER_PERSON = 3;
export const DEFAULT_BUFFER_BEFORE = 0;
export const DEFAULT_BUFFER_AFTER = 1;

/**
 * divisionId -> slot key. Divisions listed together in one slot share a key (slots that
 * share a division are merged, so the relation stays an equivalence). The key of a slot is
 * the smallest division id in it, so it never clashes with the key of a division that is in
 * no slot: such a division is absent from the map and `timeKey` uses its own id.
 */
export function buildSlotMap(slots: ScheduleSlot[] | null): Map<number, number> {
  const parent = new Map<number, number>();
  const find = (x: number): number => {
    let root = x;
    while (parent.get(root) !== root) root = parent.get(root)!;
    while (parent.get(x) !== root) {
      const next = parent.get(x)!;
      parent.set(x, root);
      x = next;
    }
    return root;
  };
  for (const slot of slots ?? []) {
    const ids = slot.divisionIds ?? [];
    for (const d of ids) if (!parent.has(d)) parent.set(d, d);
    for (let i = 1; i < ids.length; i++) {
      const a = find(ids[0]);
      const b = find(ids[i]);
      // Union by smaller id: the root is always the smallest division of the component.
      if (a !== b) {
        if (a < b) parent.set(b, a);
        else parent.set(a, b);
      }
    }
  }
  const slotOf = new Map<number, number>();
  for (const d of [...parent.keys()].sort((a, b) => a - b)) slotOf.set(d, find(d));
  return slotOf;
}

/** Identifies "the same time" (rule 1): competition type, slot, heat number. */
export function timeKey(
  heat: Pick<EngineHeat, 'divisionId' | 'competitionTypeId' | 'heatNumber'>,
  slotOf: Map<number, number>,
): string {
  return keyString(heat.competitionTypeId, slotOf.get(heat.divisionId) ?? heat.divisionId, heat.heatNumber);
}

function keyString(type: number, slot: number, heatNumber: number): string {
  return `${type}:${slot}:${heatNumber}`;
}

/** Trimmed, lower-cased location part; empty or null -> null (null never matches). */
function normLoc(value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const v = value.trim().toLowerCase();
  return v === '' ? null : v;
}

/** 0 = same city, 1 = same country (other/unknown city), 2 = anyone. */
function locationClass(
  aCity: string | null,
  aCountry: string | null,
  bCity: string | null,
  bCountry: string | null,
): 0 | 1 | 2 {
  if (aCity !== null && aCity === bCity) return 0;
  if (aCountry !== null && aCountry === bCountry) return 1;
  return 2;
}

const cmpNum = (a: number, b: number) => a - b;
const cmpStr = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

// ---------------------------------------------------------------------------------------
// The engine, in phases: prepare -> time keys -> recorders -> previous pairs -> network ->
// weights -> min-cost flow -> pairs -> statistics, unfilled reasons, reuse summary.
// ---------------------------------------------------------------------------------------

interface Loc {
  city: string | null;
  country: string | null;
}

/** The input in canonical order (sorted by ids) with its history indexed. */
interface Prepared {
  cap: number;
  bufferBefore: number;
  bufferAfter: number;
  optOutMode: OptOutMode;
  participants: EngineParticipant[];
  heats: EngineHeat[];
  heatById: Map<number, EngineHeat>;
  /** Heats covered by an accepted or a kept pinned pair. */
  fixedHeat: Set<number>;
  /** Accepted and kept pinned recordings per person. */
  fixedLoad: Map<number, number>;
  forbiddenOf: Map<number, Set<number>>;
  slotOf: Map<number, number>;
  locOf: Map<number, Loc>;
  /** Cap per participant: min(personal, event); 0 when absent or excluded as opted out. */
  capOf: Map<number, number>;
  pins: { kept: EngineAssignment[]; dropped: EngineAssignment[] };
}

interface KeyInfo {
  key: string;
  type: number;
  slot: number;
  num: number;
  heats: EngineHeat[]; // open (not fixed) heats at this time, sorted by id
}

/** When people are busy (rules 1 and 2), unavailable, and which open heats share a time. */
interface Times {
  /** Time key -> people dancing at that key or at a key their buffers cover. */
  busy: Map<string, Set<number>>;
  /** The same per division (no slot grouping), for the unfilled reasons. */
  busyInDivision: Map<string, Set<number>>;
  /** Time key -> people with an unavailable entry covering it. */
  unavailable: Map<string, Set<number>>;
  keyList: KeyInfo[];
  keyOfHeat: Map<number, string>;
  openHeatCount: number;
}

interface Recorder {
  userId: number;
  city: string | null;
  country: string | null;
  optOut: boolean;
  balance: number;
  fixedLoad: number;
  capLeft: number;
  leaf: number; // index of the (city, country) location class
}

interface Recorders {
  list: Recorder[];
  indexOfUser: Map<number, number>;
}

/** Valid previous pairs: heat id -> recorder index; plus the pairs that no longer hold. */
interface Previous {
  recorderOf: Map<number, number>;
  invalid: EngineAssignment[];
}

export function runMatchingEngine(input: EngineInput): EngineResult {
  const prep = prepare(input);
  const times = collectTimes(prep, input.pinned ?? []);
  const recorders = collectRecorders(prep);
  const previous = resolvePrevious(input.previous ?? [], prep, times, recorders);
  const net = new MatchingNetwork(prep, recorders, previous);
  for (const k of times.keyList) net.addTimeKey(k, times.busy.get(k.key), times.unavailable.get(k.key));
  const balanceSpan = spanOf(recorders.list.map((r) => r.balance));
  const mcf = new MinCostFlow(
    net.g,
    scalarCosts(net.g, net.heatNodes.length, prep.cap, balanceSpan, previous.recorderOf.size > 0),
  );
  if (net.heatNodes.length > 0 && recorders.list.length > 0) mcf.run(net.S, net.T);
  const { assignments, unassigned } = decomposeFlow(net, mcf, times);
  const load = new Map<number, number>(prep.fixedLoad);
  for (const a of assignments) load.set(a.recorderId, (load.get(a.recorderId) ?? 0) + 1);
  return {
    assignments,
    unassigned,
    stats: computeStats(prep, times, assignments, load),
    unfilled: explainUnfilled(
      unassigned.map((id) => prep.heatById.get(id)!),
      {
        participants: prep.participants,
        timeKeyOf: (h) => times.keyOfHeat.get(h.id)!,
        busy: times.busy,
        busyInDivision: times.busyInDivision,
        unavailable: times.unavailable,
        divisionKeyOf: (h) => keyString(h.competitionTypeId, h.divisionId, h.heatNumber),
        forbiddenOf: prep.forbiddenOf,
        load,
        capOf: (userId) => prep.capOf.get(userId) ?? 0,
      },
    ),
    reuse: summariseReuse(previous, recorders, assignments),
    pins: prep.pins,
  };
}

function spanOf(values: number[]): number {
  if (values.length === 0) return 0;
  let lo = values[0];
  let hi = values[0];
  for (const v of values) {
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  return hi - lo;
}

// ---- Phase 1: canonical order, validation, history ------------------------------------

function checkedInt(value: number | undefined, fallback: number, name: string, max = Infinity): number {
  const v = value ?? fallback;
  if (!Number.isInteger(v) || v < 0 || v > max) throw new Error(`${name} must be a non-negative integer`);
  return v;
}

function prepare(input: EngineInput): Prepared {
  const cap = checkedInt(input.maxRecordingsPerPerson, DEFAULT_MAX_RECORDINGS_PER_PERSON, 'maxRecordingsPerPerson');
  const bufferBefore = checkedInt(input.bufferBefore, DEFAULT_BUFFER_BEFORE, 'bufferBefore', 9);
  const bufferAfter = checkedInt(input.bufferAfter, DEFAULT_BUFFER_AFTER, 'bufferAfter', 9);
  const optOutMode: OptOutMode = input.optOutMode ?? 'last';
  const participants = sortedUnique(input.participants, (p) => p.userId, 'participant');
  const heats = sortedUnique(input.heats, (h) => h.id, 'heat');
  const fixedHeat = new Set<number>();
  const fixedLoad = new Map<number, number>();
  const seenFixed = new Set<string>();
  for (const f of input.fixed) {
    const k = `${f.heatId}:${f.recorderId}`;
    if (seenFixed.has(k)) continue;
    seenFixed.add(k);
    fixedHeat.add(f.heatId);
    fixedLoad.set(f.recorderId, (fixedLoad.get(f.recorderId) ?? 0) + 1);
  }
  const forbiddenOf = new Map<number, Set<number>>();
  for (const f of input.forbidden) {
    let set = forbiddenOf.get(f.heatId);
    if (!set) forbiddenOf.set(f.heatId, (set = new Set()));
    set.add(f.recorderId);
  }
  const locOf = new Map<number, Loc>();
  const capOf = new Map<number, number>();
  for (const p of participants) {
    locOf.set(p.userId, { city: normLoc(p.city), country: normLoc(p.country) });
    const personal = p.maxRecordings ?? cap;
    if (!Number.isInteger(personal) || personal < 0) throw new Error('maxRecordings must be a non-negative integer');
    const excluded = p.absent === true || (p.optOut && optOutMode === 'exclude');
    capOf.set(p.userId, excluded ? 0 : Math.min(personal, cap));
  }
  const heatById = new Map(heats.map((h) => [h.id, h]));
  return {
    cap,
    bufferBefore,
    bufferAfter,
    optOutMode,
    participants,
    heats,
    heatById,
    fixedHeat,
    fixedLoad,
    forbiddenOf,
    slotOf: buildSlotMap(input.slots),
    locOf,
    capOf,
    pins: { kept: [], dropped: [] },
  };
}

function sortedUnique<T>(items: T[], id: (item: T) => number, what: string): T[] {
  const sorted = [...items].sort((a, b) => id(a) - id(b));
  for (let i = 1; i < sorted.length; i++)
    if (id(sorted[i]) === id(sorted[i - 1])) throw new Error(`duplicate ${what} ${id(sorted[i])}`);
  return sorted;
}

// ---- Phase 2: busy and unavailable sets, pins, open heats per time --------------------

function collectTimes(prep: Prepared, pins: EngineAssignment[]): Times {
  const busy = new Map<string, Set<number>>();
  const busyInDivision = new Map<string, Set<number>>();
  const mark = (sets: Map<string, Set<number>>, key: string, userId: number) => {
    let set = sets.get(key);
    if (!set) sets.set(key, (set = new Set()));
    set.add(userId);
  };
  const keyOfHeat = new Map<number, string>();
  const allKeys = new Map<string, { type: number; slot: number; num: number }>();
  for (const h of prep.heats) {
    const slot = prep.slotOf.get(h.divisionId) ?? h.divisionId;
    const key = keyString(h.competitionTypeId, slot, h.heatNumber);
    keyOfHeat.set(h.id, key);
    allKeys.set(key, { type: h.competitionTypeId, slot, num: h.heatNumber });
    // Rules 1 and 2: heat n itself and the buffers around it.
    for (let d = -prep.bufferBefore; d <= prep.bufferAfter; d++) {
      mark(busy, keyString(h.competitionTypeId, slot, h.heatNumber + d), h.userId);
      mark(busyInDivision, keyString(h.competitionTypeId, h.divisionId, h.heatNumber + d), h.userId);
    }
  }
  const unavailable = unavailableAt(prep, allKeys);
  applyPins(prep, pins, keyOfHeat, busy, unavailable);
  const keys = new Map<string, KeyInfo>();
  for (const h of prep.heats) {
    if (prep.fixedHeat.has(h.id)) continue;
    const key = keyOfHeat.get(h.id)!;
    let info = keys.get(key);
    if (!info) {
      const k = allKeys.get(key)!;
      keys.set(key, (info = { key, type: k.type, slot: k.slot, num: k.num, heats: [] }));
    }
    info.heats.push(h);
  }
  const keyList = [...keys.values()].sort((a, b) => a.type - b.type || a.slot - b.slot || a.num - b.num);
  const openHeatCount = keyList.reduce((n, k) => n + k.heats.length, 0);
  return { busy, busyInDivision, unavailable, keyList, keyOfHeat, openHeatCount };
}

/**
 * Time key -> participants with an unavailable entry covering it: an entry without a
 * division covers its competition type and heat number in every slot, one with a division
 * covers that division's slot (the same time). Buffers do not extend an entry.
 */
function unavailableAt(
  prep: Prepared,
  allKeys: Map<string, { type: number; slot: number; num: number }>,
): Map<string, Set<number>> {
  const out = new Map<string, Set<number>>();
  const mark = (key: string, userId: number) => {
    let set = out.get(key);
    if (!set) out.set(key, (set = new Set()));
    set.add(userId);
  };
  for (const p of prep.participants) {
    for (const e of p.unavailable ?? []) {
      if (e.divisionId !== null && e.divisionId !== undefined) {
        mark(keyString(e.competitionTypeId, prep.slotOf.get(e.divisionId) ?? e.divisionId, e.heatNumber), p.userId);
        continue;
      }
      for (const [key, k] of allKeys) if (k.type === e.competitionTypeId && k.num === e.heatNumber) mark(key, p.userId);
    }
  }
  return out;
}

/**
 * Pins that still hold become fixed pairs (heat covered, counted toward the cap); the
 * others are dropped. A pin holds when its heat is declared and not accepted, the recorder
 * is another participant who is not absent, free of dancing then (rules 1, 2), not
 * unavailable then, and the pair is not forbidden. One pin per heat (lowest recorder id).
 * Caps and opt-out never drop a pin.
 */
function applyPins(
  prep: Prepared,
  pins: EngineAssignment[],
  keyOfHeat: Map<number, string>,
  busy: Map<string, Set<number>>,
  unavailable: Map<string, Set<number>>,
): void {
  const absent = new Set(prep.participants.filter((p) => p.absent).map((p) => p.userId));
  const sorted = [...pins].sort((a, b) => a.heatId - b.heatId || a.recorderId - b.recorderId);
  const pinnedHeat = new Set<number>();
  for (let i = 0; i < sorted.length; i++) {
    const { heatId, recorderId } = sorted[i];
    if (i > 0 && sorted[i - 1].heatId === heatId && sorted[i - 1].recorderId === recorderId) continue;
    const key = keyOfHeat.get(heatId);
    const holds =
      key !== undefined &&
      !prep.fixedHeat.has(heatId) &&
      !pinnedHeat.has(heatId) &&
      prep.locOf.has(recorderId) &&
      !absent.has(recorderId) &&
      !busy.get(key)?.has(recorderId) &&
      !unavailable.get(key)?.has(recorderId) &&
      !prep.forbiddenOf.get(heatId)?.has(recorderId);
    if (!holds) {
      prep.pins.dropped.push({ heatId, recorderId });
      continue;
    }
    pinnedHeat.add(heatId);
    prep.pins.kept.push({ heatId, recorderId });
  }
  for (const { heatId, recorderId } of prep.pins.kept) {
    prep.fixedHeat.add(heatId);
    prep.fixedLoad.set(recorderId, (prep.fixedLoad.get(recorderId) ?? 0) + 1);
  }
}

// ---- Phase 3: recorders (participants with room left) and their location classes -----

function collectRecorders(prep: Prepared): Recorders {
  const leafKey = (l: Loc) => JSON.stringify([l.city, l.country]);
  const leafIndex = new Map<string, number>();
  [...new Set(prep.participants.map((p) => leafKey(prep.locOf.get(p.userId)!)))]
    .sort(cmpStr)
    .forEach((k, i) => leafIndex.set(k, i));
  const list: Recorder[] = [];
  for (const p of prep.participants) {
    const fixedLoad = prep.fixedLoad.get(p.userId) ?? 0;
    const cap = prep.capOf.get(p.userId)!;
    if (fixedLoad >= cap) continue;
    const l = prep.locOf.get(p.userId)!;
    list.push({
      userId: p.userId,
      ...l,
      optOut: p.optOut,
      balance: p.balance ?? 0,
      fixedLoad,
      capLeft: cap - fixedLoad,
      leaf: leafIndex.get(leafKey(l))!,
    });
  }
  const indexOfUser = new Map<number, number>();
  list.forEach((r, i) => indexOfUser.set(r.userId, i));
  return { list, indexOfUser };
}

// ---- Phase 4: previous pairs that still hold -----------------------------------------

/**
 * A previous pair holds when its heat is open (declared, neither accepted nor pinned), the
 * recorder is a participant with room left, free at that time (rules 1, 2), available then
 * and has not rejected the heat. One pair per heat: a second one (lowest recorder id wins)
 * is invalid.
 */
function resolvePrevious(pairs: EngineAssignment[], prep: Prepared, times: Times, recorders: Recorders): Previous {
  const recorderOf = new Map<number, number>();
  const invalid: EngineAssignment[] = [];
  const sorted = [...pairs].sort((a, b) => a.heatId - b.heatId || a.recorderId - b.recorderId);
  for (let i = 0; i < sorted.length; i++) {
    const { heatId, recorderId } = sorted[i];
    if (i > 0 && sorted[i - 1].heatId === heatId && sorted[i - 1].recorderId === recorderId) continue;
    const ri = recorders.indexOfUser.get(recorderId);
    const key = times.keyOfHeat.get(heatId);
    const holds =
      ri !== undefined &&
      key !== undefined &&
      !prep.fixedHeat.has(heatId) &&
      !recorderOf.has(heatId) &&
      !times.busy.get(key)?.has(recorderId) &&
      !times.unavailable.get(key)?.has(recorderId) &&
      !prep.forbiddenOf.get(heatId)?.has(recorderId);
    if (holds) recorderOf.set(heatId, ri);
    else invalid.push({ heatId, recorderId });
  }
  return { recorderOf, invalid };
}

// ---- Phase 5: the network ------------------------------------------------------------

/** Recorders of one location class that are eligible at one time key, cut in chunks. */
interface LeafAtKey {
  leaf: number;
  node: number; // shared leaf node
  chunks: number[][]; // recorder indices, sorted by userId
  chunkNodes: number[]; // node per chunk (== [node] when there is one chunk)
  city: string | null;
  country: string | null;
}

/** One time key while its part of the network is built. */
interface KeyNet {
  leaves: LeafAtKey[];
  leafAt: Map<number, LeafAtKey>;
  eligible: Uint8Array; // by recorder index
  cityLeaves: Map<string, LeafAtKey[]>;
  countryLeaves: Map<string, LeafAtKey[]>;
  hubs: Map<string, number>;
}

interface HubChoice {
  id: string;
  members: LeafAtKey[];
  cls: 0 | 1 | 2;
}

interface HeatNode {
  node: number;
  sourceEdge: number;
  heats: EngineHeat[]; // sorted by id
}

/**
 * Recorders per chunk. A heat with rejected recorders gets a private copy of the path down
 * to the chunks that contain them, so a small chunk keeps such copies cheap.
 */
const CHUNK = 64;

/**
 * s -> heat node (a group of interchangeable heats: same time key and same dancer
 *      location, no rejected pair, no previous pair; or a single heat)
 *   -> hub of its time key: city hub (cost class 0), country hub (class 1), any hub
 *      (class 2); a hub reaches the location leaves whose city / country matches
 *   -> leaf (recorders of one (city, country) eligible at that time key)
 *   -> chunk (<= CHUNK recorders of the leaf) -> recorder
 *   -> t through capLeft unit edges: the j-th new recording of a person costs
 *      (fixedLoad + j - 1) (convex), plus the opt-out penalty.
 * Interchangeable heats share nodes, and eligibility depends only on the time key, so
 * the network has O(keys x recorders) edges instead of O(heats x recorders). Rejected
 * pairs are exact: such a heat gets private copies of the hubs / leaves / chunks that
 * contain a rejected recorder, and those copies leave the rejected recorders out.
 * A heat with a valid previous pair also gets a direct edge to that recorder (its true
 * location class, no change cost) while its hub edges carry the change cost: keeping the
 * pair is the cheapest way to cover it at equal higher tiers.
 * A path through a "worse" hub (e.g. the any hub to a same-city recorder) is allowed but
 * never cheaper than the true class, so optimal flows use true classes (and stats are
 * recomputed from the real pairs anyway).
 */
class MatchingNetwork {
  readonly g = new NetworkBuilder();
  readonly S = this.g.addNode();
  readonly T = this.g.addNode();
  readonly heatNodes: HeatNode[] = [];
  /** node -> recorder index (undefined: not a recorder node). */
  readonly nodeRecorder: number[] = [];
  private readonly recorderNode: Int32Array;
  /** Change cost on hub edges; only when there are previous pairs to keep. */
  private readonly change: number;
  /** Highest recorder balance: a unit's balance cost is maxBalance - balance (>= 0). */
  private readonly maxBalance: number;

  constructor(
    private readonly prep: Prepared,
    private readonly recorders: Recorders,
    private readonly previous: Previous,
  ) {
    this.recorderNode = new Int32Array(recorders.list.length).fill(-1);
    this.change = previous.recorderOf.size > 0 ? 1 : 0;
    this.maxBalance = recorders.list.reduce((m, r) => Math.max(m, r.balance), -Infinity);
  }

  recorderUserId(ri: number): number {
    return this.recorders.list[ri].userId;
  }

  /** Adds the heats of one time key (nothing when nobody can record then). */
  addTimeKey(k: KeyInfo, busyHere: Set<number> | undefined, unavailableHere: Set<number> | undefined): void {
    const kn = this.leavesAt(busyHere, unavailableHere);
    if (kn.leaves.length === 0) return;
    const groups = new Map<string, HeatNode>();
    for (const h of k.heats) {
      const bannedHere = this.bannedEligible(h, kn);
      const prevRecorder = this.previous.recorderOf.get(h.id);
      if (bannedHere.length === 0 && prevRecorder === undefined) this.addToGroup(h, kn, groups);
      else this.addSingleHeat(h, kn, bannedHere, prevRecorder);
    }
    for (const grp of groups.values()) grp.sourceEdge = this.g.addEdge(this.S, grp.node, grp.heats.length);
  }

  private recorderNodeOf(ri: number): number {
    if (this.recorderNode[ri] < 0) {
      const v = this.g.addNode();
      this.recorderNode[ri] = v;
      this.nodeRecorder[v] = ri;
      const r = this.recorders.list[ri];
      const bal = this.maxBalance - r.balance;
      for (let j = 1; j <= r.capLeft; j++)
        this.g.addEdge(v, this.T, 1, { opt: r.optOut ? 1 : 0, load: r.fixedLoad + j - 1, bal });
    }
    return this.recorderNode[ri];
  }

  private edgeToRecorder(u: number, ri: number, loc = 0): number {
    return this.g.addEdge(u, this.recorderNodeOf(ri), INF_CAP, loc ? { loc } : undefined, 1);
  }

  /** Eligible recorders at a time key (rules 1, 2, 4, availability), grouped in leaves and chunks. */
  private leavesAt(busyHere: Set<number> | undefined, unavailableHere: Set<number> | undefined): KeyNet {
    const { list } = this.recorders;
    const eligible = new Uint8Array(list.length);
    const byLeaf = new Map<number, number[]>();
    for (let ri = 0; ri < list.length; ri++) {
      if (busyHere?.has(list[ri].userId) || unavailableHere?.has(list[ri].userId)) continue;
      eligible[ri] = 1;
      const members = byLeaf.get(list[ri].leaf);
      if (members) members.push(ri);
      else byLeaf.set(list[ri].leaf, [ri]);
    }
    const kn: KeyNet = {
      leaves: [],
      leafAt: new Map(),
      eligible,
      cityLeaves: new Map(),
      countryLeaves: new Map(),
      hubs: new Map(),
    };
    for (const leaf of [...byLeaf.keys()].sort(cmpNum)) {
      const l = this.addLeaf(leaf, byLeaf.get(leaf)!);
      kn.leaves.push(l);
      kn.leafAt.set(leaf, l);
      if (l.city !== null) (kn.cityLeaves.get(l.city) ?? kn.cityLeaves.set(l.city, []).get(l.city)!).push(l);
      if (l.country !== null)
        (kn.countryLeaves.get(l.country) ?? kn.countryLeaves.set(l.country, []).get(l.country)!).push(l);
    }
    return kn;
  }

  private addLeaf(leaf: number, members: number[]): LeafAtKey {
    const { g } = this;
    const chunks: number[][] = [];
    for (let i = 0; i < members.length; i += CHUNK) chunks.push(members.slice(i, i + CHUNK));
    const node = g.addNode();
    let chunkNodes: number[];
    if (chunks.length === 1) chunkNodes = [node];
    else {
      chunkNodes = chunks.map(() => g.addNode());
      for (const c of chunkNodes) g.addEdge(node, c, INF_CAP);
    }
    chunks.forEach((chunk, ci) => {
      for (const ri of chunk) this.edgeToRecorder(chunkNodes[ci], ri);
    });
    const first = this.recorders.list[members[0]];
    return { leaf, node, chunks, chunkNodes, city: first.city, country: first.country };
  }

  /** A shared hub of the key, created on first use. */
  private sharedHub(kn: KeyNet, ch: HubChoice): number {
    let v = kn.hubs.get(ch.id);
    if (v === undefined) {
      v = this.g.addNode();
      kn.hubs.set(ch.id, v);
      for (const l of ch.members) this.g.addEdge(v, l.node, INF_CAP);
    }
    return v;
  }

  /** The hubs a dancer at (city, country) may use, with the location class they carry. */
  private hubChoices(kn: KeyNet, loc: Loc): HubChoice[] {
    const out: HubChoice[] = [];
    if (loc.city !== null && kn.cityLeaves.has(loc.city))
      out.push({ id: `c:${loc.city}`, members: kn.cityLeaves.get(loc.city)!, cls: 0 });
    if (loc.country !== null && kn.countryLeaves.has(loc.country))
      out.push({ id: `n:${loc.country}`, members: kn.countryLeaves.get(loc.country)!, cls: 1 });
    out.push({ id: 'any', members: kn.leaves, cls: 2 });
    return out;
  }

  private dancerLoc(userId: number): Loc {
    return this.prep.locOf.get(userId) ?? { city: null, country: null };
  }

  /** Rejected recorders of the heat that are eligible at its key, sorted. */
  private bannedEligible(h: EngineHeat, kn: KeyNet): number[] {
    const banned = this.prep.forbiddenOf.get(h.id);
    const out: number[] = [];
    if (banned)
      for (const uid of banned) {
        const ri = this.recorders.indexOfUser.get(uid);
        if (ri !== undefined && kn.eligible[ri]) out.push(ri);
      }
    return out.sort(cmpNum);
  }

  /** A heat without rejected or previous pairs joins the group of its dancer's location. */
  private addToGroup(h: EngineHeat, kn: KeyNet, groups: Map<string, HeatNode>): void {
    const loc = this.dancerLoc(h.userId);
    const gid = JSON.stringify([loc.city, loc.country]);
    let grp = groups.get(gid);
    if (!grp) {
      grp = { node: this.g.addNode(), sourceEdge: -1, heats: [] };
      groups.set(gid, grp);
      this.heatNodes.push(grp);
      for (const ch of this.hubChoices(kn, loc))
        this.g.addEdge(grp.node, this.sharedHub(kn, ch), INF_CAP, { loc: ch.cls, change: this.change });
    }
    grp.heats.push(h);
  }

  /** A heat of its own: private copies of what contains rejected recorders; previous pair. */
  private addSingleHeat(h: EngineHeat, kn: KeyNet, bannedHere: number[], prevRecorder: number | undefined): void {
    const { g } = this;
    const loc = this.dancerLoc(h.userId);
    const node = g.addNode();
    this.heatNodes.push({ node, sourceEdge: g.addEdge(this.S, node, 1), heats: [h] });
    const privateLeaf = this.privateLeaves(kn, bannedHere);
    for (const ch of this.hubChoices(kn, loc)) {
      const cost = { loc: ch.cls, change: this.change };
      if (!ch.members.some((l) => privateLeaf.has(l.leaf))) {
        g.addEdge(node, this.sharedHub(kn, ch), INF_CAP, cost);
        continue;
      }
      const hub = g.addNode();
      g.addEdge(node, hub, INF_CAP, cost);
      for (const l of ch.members) g.addEdge(hub, privateLeaf.get(l.leaf) ?? l.node, INF_CAP);
    }
    if (prevRecorder !== undefined) {
      const r = this.recorders.list[prevRecorder];
      this.edgeToRecorder(node, prevRecorder, locationClass(loc.city, loc.country, r.city, r.country));
    }
  }

  /** Leaf copies without the rejected recorders (leaf -> private node). */
  private privateLeaves(kn: KeyNet, bannedHere: number[]): Map<number, number> {
    const bannedSet = new Set(bannedHere);
    const privateLeaf = new Map<number, number>();
    for (const ri of bannedHere) {
      const l = kn.leafAt.get(this.recorders.list[ri].leaf)!;
      if (privateLeaf.has(l.leaf)) continue;
      const pv = this.g.addNode();
      privateLeaf.set(l.leaf, pv);
      l.chunks.forEach((chunk, ci) => {
        if (chunk.some((x) => bannedSet.has(x))) {
          for (const x of chunk) if (!bannedSet.has(x)) this.edgeToRecorder(pv, x);
        } else this.g.addEdge(pv, l.chunkNodes[ci], INF_CAP);
      });
    }
    return privateLeaf;
  }
}

// ---- Phase 6: scalar weights for the lexicographic objective --------------------------

/**
 * Cost of one unit = wOpt*optOut + wCountry*[class>=1] + wAny*[class==2]
 * + wBal*(maxBalance - balance) + wLoad*load + change (1 when the pair was not suggested
 * before; only when previous pairs exist). The flow is lexicographically optimal iff its
 * residual network has no lexicographically negative cycle, and it suffices to look at
 * simple cycles. In a simple cycle:
 *  - opt-out, balance and load costs sit only on edges into t, and a simple cycle uses at
 *    most two arcs at t (one forward, one backward): |opt| <= 1, |balance| <= balanceSpan
 *    (highest minus lowest recorder balance), |load| <= cap-1;
 *  - location and change costs sit only on edges out of heat nodes, at most two arcs per
 *    heat node: |class counts|, |changes| <= B = 2 * (number of heat nodes).
 * Each weight is 1 + the largest total the lower tiers can reach in such a cycle, so a
 * cycle that is lexicographically negative is also negative in the scalar cost, and a
 * scalar-optimal flow (what the primal-dual algorithm produces) is lexicographically
 * optimal. Maximum coverage needs no weight: successive shortest paths end with a maximum
 * flow. The balance cost is offset by maxBalance so that every cost is >= 0; every unit of
 * a maximum flow pays the offset once, so the offset changes no comparison. With every
 * balance equal (balanceSpan 0) the balance cost is 0 and the weights are those of the
 * objective without that tier; without previous pairs they are those of five tiers.
 */
function scalarCosts(
  g: NetworkBuilder,
  heatNodeCount: number,
  cap: number,
  balanceSpan: number,
  stability: boolean,
): Float64Array {
  // Exact weights for the full balance span when they fit; otherwise (very large networks
  // with previous pairs and a wide spread of balances) the largest span that fits: balances
  // more than `span` below the highest one then count as equal in the balance tier (every
  // higher tier stays exact). See docs/fair-matching.md.
  let span = balanceSpan;
  let w = tierWeights(heatNodeCount, cap, span, stability);
  if (!w.fits) {
    let lo = 0;
    let hi = balanceSpan;
    if (!tierWeights(heatNodeCount, cap, 0, stability).fits)
      throw new Error('matching network too large for exact weights');
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (tierWeights(heatNodeCount, cap, mid, stability).fits) lo = mid;
      else hi = mid - 1;
    }
    span = lo;
    w = tierWeights(heatNodeCount, cap, span, stability);
  }
  const scalar = g.costs.map((c) => {
    const bal = c.bal < span ? c.bal : span;
    return (
      c.opt * w.wOpt +
      (c.loc >= 1 ? w.wCountry : 0) +
      (c.loc === 2 ? w.wAny : 0) +
      bal * w.wBal +
      c.load * w.wLoad +
      c.change
    );
  });
  const m = g.edgeCount;
  const ids = g.costId.data;
  const cost = new Float64Array(m);
  for (let e = 0; e < m; e++) cost[e] = scalar[ids[e]];
  return cost;
}

function tierWeights(heatNodeCount: number, cap: number, balanceSpan: number, stability: boolean) {
  const B = 2 * heatNodeCount + 2;
  const loadSpan = Math.max(cap - 1, 0);
  const changeSpan = stability ? B : 0;
  const wLoad = 1 + changeSpan;
  const wBal = 1 + loadSpan * wLoad + changeSpan;
  const below = (tiersBelow: number) => tiersBelow + loadSpan * wLoad + changeSpan;
  const wAny = 1 + below(balanceSpan * wBal);
  const wCountry = 1 + B * wAny + below(balanceSpan * wBal);
  const wOpt = 1 + B * wCountry + B * wAny + below(balanceSpan * wBal);
  const fits = (wOpt + wCountry + wAny + wBal * balanceSpan + wLoad * (cap + 1) + 1) * 16 <= Number.MAX_SAFE_INTEGER;
  return { wOpt, wCountry, wAny, wBal, wLoad, fits };
}

// ---- Phase 7: the flow as (heat, recorder) pairs, deterministically -------------------

/**
 * Forward edges form a DAG (s, heat, hub, leaf, chunk, recorder), so walking from a heat
 * node along edges with flow left always ends at a recorder.
 */
function decomposeFlow(
  net: MatchingNetwork,
  mcf: MinCostFlow,
  times: Times,
): { assignments: EngineAssignment[]; unassigned: number[] } {
  const { g, S, T, heatNodes, nodeRecorder } = net;
  // Edges with flow (s and t edges left out), grouped by tail node in edge order (CSR).
  const flowLeft = new Int32Array(g.edgeCount);
  const outStart = new Int32Array(g.nodeCount + 1);
  const from = g.from.data;
  const to = g.to.data;
  for (let e = 0; e < g.edgeCount; e++) {
    const f = mcf.flowOf(e, g.cap.data[e]);
    if (f > 0 && to[e] !== T && from[e] !== S) {
      flowLeft[e] = f;
      outStart[from[e] + 1]++;
    }
  }
  for (let v = 0; v < g.nodeCount; v++) outStart[v + 1] += outStart[v];
  const outEdges = new Int32Array(outStart[g.nodeCount]);
  const ptr = outStart.slice(0, g.nodeCount);
  for (let e = 0; e < g.edgeCount; e++) if (flowLeft[e] > 0) outEdges[ptr[from[e]]++] = e;
  ptr.set(outStart.subarray(0, g.nodeCount));
  const assignments: EngineAssignment[] = [];
  const unassigned: number[] = [];
  const placed = new Set<number>();
  for (const hn of heatNodes) {
    let units = hn.sourceEdge >= 0 ? mcf.flowOf(hn.sourceEdge, g.cap.data[hn.sourceEdge]) : 0;
    for (const h of hn.heats) {
      placed.add(h.id);
      if (units === 0) {
        unassigned.push(h.id);
        continue;
      }
      units--;
      let u = hn.node;
      while (nodeRecorder[u] === undefined) {
        while (flowLeft[outEdges[ptr[u]]] === 0) ptr[u]++;
        const e = outEdges[ptr[u]];
        flowLeft[e]--;
        u = to[e];
      }
      assignments.push({ heatId: h.id, recorderId: net.recorderUserId(nodeRecorder[u]) });
    }
  }
  // Heats at a time key where nobody is eligible never got a node.
  for (const k of times.keyList) for (const h of k.heats) if (!placed.has(h.id)) unassigned.push(h.id);
  assignments.sort((a, b) => a.heatId - b.heatId);
  unassigned.sort(cmpNum);
  return { assignments, unassigned };
}

// ---- Phase 8: statistics from the real pairs, reuse summary ---------------------------

function computeStats(
  prep: Prepared,
  times: Times,
  assignments: EngineAssignment[],
  load: Map<number, number>,
): EngineResult['stats'] {
  const optOut = new Set(prep.participants.filter((p) => p.optOut).map((p) => p.userId));
  const balanceOf = new Map(prep.participants.map((p) => [p.userId, p.balance ?? 0]));
  let optOutUses = 0;
  let sameCity = 0;
  let sameCountry = 0;
  let balanceSum = 0;
  for (const a of assignments) {
    balanceSum += balanceOf.get(a.recorderId) ?? 0;
    const r = prep.locOf.get(a.recorderId)!;
    const d = prep.locOf.get(prep.heatById.get(a.heatId)!.userId) ?? { city: null, country: null };
    const cls = locationClass(d.city, d.country, r.city, r.country);
    if (cls === 0) sameCity++;
    else if (cls === 1) sameCountry++;
    if (optOut.has(a.recorderId)) optOutUses++;
  }
  let maxLoad = 0;
  for (const v of load.values()) if (v > maxLoad) maxLoad = v;
  return {
    heats: times.openHeatCount,
    covered: assignments.length,
    optOutUses,
    sameCity,
    sameCountry,
    balanceSum,
    maxLoad,
  };
}

function summariseReuse(previous: Previous, recorders: Recorders, assignments: EngineAssignment[]): EngineReuse {
  const chosen = new Map(assignments.map((a) => [a.heatId, a.recorderId]));
  const dropped: EngineAssignment[] = [];
  let kept = 0;
  for (const [heatId, ri] of [...previous.recorderOf].sort((a, b) => a[0] - b[0])) {
    const recorderId = recorders.list[ri].userId;
    if (chosen.get(heatId) === recorderId) kept++;
    else dropped.push({ heatId, recorderId });
  }
  return {
    valid: previous.recorderOf.size,
    kept,
    added: assignments.length - kept,
    dropped,
    invalid: previous.invalid,
  };
}

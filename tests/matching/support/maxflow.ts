/**
 * Independent maximum-coverage check for the matching engine (used by tests and benches
 * only). It deliberately shares no code with matching.engine.ts: its own slot grouping,
 * its own eligibility test, its own plain Dinic max flow on the heat -> recorder network.
 *
 * Network: source -> heat (capacity 1) -> every eligible recorder -> sink (capacity
 * max(0, cap - accepted recordings of that person)). Its maximum flow is the largest number
 * of open heats that can get a recorder under rules 1, 2, 4 and the rejected pairs.
 */

import type { EngineHeat, EngineInput } from '../../../src/modules/matching/matching.engine.js';

/** Plain Dinic max flow (adjacency lists, BFS levels, DFS with current-arc pointers). */
export class Dinic {
  private readonly head: number[];
  private readonly next: number[] = [];
  private readonly to: number[] = [];
  private readonly cap: number[] = [];
  private readonly initial: number[] = [];

  constructor(readonly nodes: number) {
    this.head = new Array<number>(nodes).fill(-1);
  }

  /** Adds u -> v with capacity c; returns the edge id. */
  addEdge(u: number, v: number, c: number): number {
    const id = this.to.length;
    this.to.push(v, u);
    this.cap.push(c, 0);
    this.initial.push(c, 0);
    this.next.push(this.head[u], this.head[v]);
    this.head[u] = id;
    this.head[v] = id + 1;
    return id;
  }

  /** Flow currently on edge `id` (as returned by addEdge). */
  flow(id: number): number {
    return this.initial[id] - this.cap[id];
  }

  maxFlow(s: number, t: number): number {
    const n = this.nodes;
    const level = new Int32Array(n);
    const it = new Int32Array(n);
    let total = 0;
    for (;;) {
      level.fill(-1);
      level[s] = 0;
      const queue = [s];
      for (let q = 0; q < queue.length; q++) {
        const u = queue[q];
        for (let e = this.head[u]; e !== -1; e = this.next[e]) {
          if (this.cap[e] > 0 && level[this.to[e]] < 0) {
            level[this.to[e]] = level[u] + 1;
            queue.push(this.to[e]);
          }
        }
      }
      if (level[t] < 0) return total;
      for (let v = 0; v < n; v++) it[v] = this.head[v];
      for (;;) {
        const f = this.augment(s, t, level, it);
        if (f === 0) break;
        total += f;
      }
    }
  }

  /** One augmenting path in the level graph (iterative DFS); returns the amount pushed. */
  private augment(s: number, t: number, level: Int32Array, it: Int32Array): number {
    const pathEdges: number[] = [];
    let u = s;
    for (;;) {
      if (u === t) {
        let push = Infinity;
        for (const e of pathEdges) push = Math.min(push, this.cap[e]);
        for (const e of pathEdges) {
          this.cap[e] -= push;
          this.cap[e ^ 1] += push;
        }
        return push;
      }
      let e = it[u];
      while (e !== -1 && !(this.cap[e] > 0 && level[this.to[e]] === level[u] + 1)) e = this.next[e];
      it[u] = e;
      if (e !== -1) {
        pathEdges.push(e);
        u = this.to[e];
        continue;
      }
      // Dead end: drop u from the level graph and step back.
      level[u] = -1;
      if (pathEdges.length === 0) return 0;
      const back = pathEdges.pop()!;
      u = this.to[back ^ 1];
      it[u] = this.next[it[u]];
    }
  }
}

/** division id -> label; divisions listed in a common slot (transitively) share a label. */
function slotLabels(input: EngineInput): Map<number, number> {
  const label = new Map<number, number>();
  const slots = input.slots ?? [];
  for (const s of slots) for (const d of s.divisionIds) label.set(d, d);
  // Propagate the smallest label inside each slot until nothing changes.
  for (let changed = true; changed;) {
    changed = false;
    for (const s of slots) {
      if (s.divisionIds.length === 0) continue;
      const min = Math.min(...s.divisionIds.map((d) => label.get(d)!));
      for (const d of s.divisionIds)
        if (label.get(d)! !== min) {
          label.set(d, min);
          changed = true;
        }
    }
  }
  return label;
}

export interface CoverageOptions {
  /** true: one node per heat and per (heat, recorder) edge (small inputs only). */
  explicit?: boolean;
  /** Only these recorders may be used (e.g. to count what non-opt-out people can cover). */
  recorderFilter?: (userId: number) => boolean;
}

/**
 * Maximum number of open (not fixed) heats that can get a recorder.
 * Grouped mode (default): heats at the same time with the same rejected recorders have the
 * same eligible recorders (a dancer is busy during his/her own heat, so "not the dancer"
 * is implied), so they share one node whose source capacity is their number.
 */
export function maxCoverage(input: EngineInput, options: CoverageOptions = {}): number {
  const cap = input.maxRecordingsPerPerson ?? 3;
  const before = input.bufferBefore ?? 0;
  const after = input.bufferAfter ?? 1;
  const label = slotLabels(input);
  const slotOfDiv = (d: number) => (label.has(d) ? `s${label.get(d)}` : `d${d}`);
  const byUser = new Map(input.participants.map((p) => [p.userId, p]));
  /** A participant's cap: min(personal, event); 0 when absent or an excluded opt-out. */
  const capOf = (userId: number): number => {
    const p = byUser.get(userId)!;
    if (p.absent || (p.optOut && input.optOutMode === 'exclude')) return 0;
    return Math.min(p.maxRecordings ?? cap, cap);
  };
  const unavailableFor = (userId: number, h: EngineHeat): boolean =>
    (byUser.get(userId)?.unavailable ?? []).some(
      (e) =>
        e.competitionTypeId === h.competitionTypeId &&
        e.heatNumber === h.heatNumber &&
        (e.divisionId === null || slotOfDiv(e.divisionId) === slotOfDiv(h.divisionId)),
    );

  const heatsOf = new Map<number, EngineHeat[]>();
  for (const h of input.heats) {
    const list = heatsOf.get(h.userId) ?? [];
    list.push(h);
    heatsOf.set(h.userId, list);
  }
  const accepted = new Map<number, number>();
  const fixedHeats = new Set<number>();
  const seen = new Set<string>();
  const fixedPairs = [...input.fixed, ...keptPins(input, (h, r) => dancesNear(h, r) || unavailableFor(r, h))];
  for (const f of fixedPairs) {
    if (seen.has(`${f.heatId}/${f.recorderId}`)) continue;
    seen.add(`${f.heatId}/${f.recorderId}`);
    fixedHeats.add(f.heatId);
    accepted.set(f.recorderId, (accepted.get(f.recorderId) ?? 0) + 1);
  }
  const rejected = new Map<number, number[]>();
  for (const f of input.forbidden) {
    const list = rejected.get(f.heatId) ?? [];
    if (!list.includes(f.recorderId)) list.push(f.recorderId);
    rejected.set(f.heatId, list);
  }
  function dancesNear(h: EngineHeat, recorderId: number): boolean {
    for (const own of heatsOf.get(recorderId) ?? []) {
      if (own.competitionTypeId !== h.competitionTypeId) continue;
      if (slotOfDiv(own.divisionId) !== slotOfDiv(h.divisionId)) continue;
      if (h.heatNumber >= own.heatNumber - before && h.heatNumber <= own.heatNumber + after) return true;
    }
    return false;
  }

  const filter = options.recorderFilter ?? (() => true);
  const recorders = input.participants
    .map((p) => ({ userId: p.userId, room: capOf(p.userId) - (accepted.get(p.userId) ?? 0) }))
    .filter((r) => r.room > 0 && filter(r.userId));

  /** Rules 1 and 2 and rejected pairs; `checkSelf` adds "not the dancer" explicitly. */
  const eligible = (h: EngineHeat, recorderId: number, checkSelf: boolean): boolean => {
    if (checkSelf && recorderId === h.userId) return false;
    if ((rejected.get(h.id) ?? []).includes(recorderId)) return false;
    if (unavailableFor(recorderId, h)) return false;
    return !dancesNear(h, recorderId); // dancing at that time or within the buffers
  };

  const open = input.heats.filter((h) => !fixedHeats.has(h.id));
  const groups = new Map<string, EngineHeat[]>();
  open.forEach((h, i) => {
    const id = options.explicit
      ? `h${i}`
      : `${h.competitionTypeId}|${slotOfDiv(h.divisionId)}|${h.heatNumber}|${[...(rejected.get(h.id) ?? [])].sort((a, b) => a - b).join(',')}`;
    const list = groups.get(id) ?? [];
    list.push(h);
    groups.set(id, list);
  });

  const groupList = [...groups.values()];
  const s = 0;
  const t = 1;
  const flow = new Dinic(2 + groupList.length + recorders.length);
  const recNode = (i: number) => 2 + groupList.length + i;
  recorders.forEach((r, i) => flow.addEdge(recNode(i), t, r.room));
  groupList.forEach((members, gi) => {
    flow.addEdge(s, 2 + gi, members.length);
    recorders.forEach((r, i) => {
      if (eligible(members[0], r.userId, !!options.explicit)) flow.addEdge(2 + gi, recNode(i), members.length);
    });
  });
  return flow.maxFlow(s, t);
}

/**
 * Pins that hold (test-side statement): heat declared and not accepted, recorder another
 * participant, not absent, not dancing near it (`blocked`), not rejected; one per heat,
 * lowest recorder id first. Opt-out and caps never drop a pin.
 */
export function keptPins(
  input: EngineInput,
  blocked: (h: EngineHeat, recorderId: number) => boolean,
): { heatId: number; recorderId: number }[] {
  const accepted = new Set(input.fixed.map((f) => f.heatId));
  const out: { heatId: number; recorderId: number }[] = [];
  const taken = new Set<number>();
  for (const pin of [...(input.pinned ?? [])].sort((a, b) => a.heatId - b.heatId || a.recorderId - b.recorderId)) {
    const h = input.heats.find((x) => x.id === pin.heatId);
    const p = input.participants.find((x) => x.userId === pin.recorderId);
    if (!h || !p || p.absent || accepted.has(h.id) || taken.has(h.id) || h.userId === pin.recorderId) continue;
    if (input.forbidden.some((f) => f.heatId === h.id && f.recorderId === pin.recorderId)) continue;
    if (blocked(h, pin.recorderId)) continue;
    taken.add(h.id);
    out.push(pin);
  }
  return out;
}

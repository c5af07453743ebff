/**
 * Recording-partner matching engine (pure).
 *
 * Given the participants of an event, their declared heats, the schedule (which divisions
 * share a time slot) and the history of earlier runs (accepted = fixed, rejected =
 * forbidden pairs), it proposes one recorder per uncovered heat.
 *
 * Business rules (SPEC "Event settings and recording-partner matching", DECISIONS "Heats
 * and matching"):
 *  1. Collision: nobody records a heat while dancing one. "Same time" = same competition
 *     type, same heat number and divisions in the same slot (same division when no slot
 *     groups it). A dancer is therefore never proposed for his/her own heat.
 *  2. Buffer: nobody records heat n+1 of a slot/type in which he/she dances heat n.
 *  3. Preference: same city, then same country, then anyone (trimmed, case-insensitive;
 *     null never matches).
 *  4. At most `maxRecordingsPerPerson` (3) recordings per person, accepted ones included.
 *  5. Opt-out participants record only when nothing else works.
 *  Plus: rejected (heat, recorder) pairs are never proposed again.
 *
 * Objective, lexicographic and exact:
 *  coverage (max) > opt-out uses (min) > same-city pairs (max) > same-country pairs (max)
 *  > load spread (min sum over recorders of the convex cost 0+1+...+(load-1))
 *  > deterministic tie-break (fixed processing order of ids).
 *
 * Algorithm: min-cost max-flow on a compressed network, solved by primal-dual successive
 * shortest paths (Dijkstra with potentials, then a Dinic blocking flow on the
 * zero-reduced-cost subgraph per phase). See `buildNetwork` and `MinCostFlow` for the
 * network and why the scalar weights reproduce the lexicographic order exactly.
 *
 * No I/O, no clock, no randomness: the result depends only on the input *set* (every
 * array is sorted by ids before use).
 */

export interface EngineParticipant {
  userId: number;
  city: string | null;
  country: string | null;
  optOut: boolean;
}
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
  /** Default 3. */
  maxRecordingsPerPerson?: number;
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
  stats: { heats: number; covered: number; optOutUses: number; sameCity: number; sameCountry: number; maxLoad: number };
}

export const DEFAULT_MAX_RECORDINGS_PER_PERSON = 3;

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
      if (a !== b) (a < b ? parent.set(b, a) : parent.set(a, b));
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
// Min-cost flow solver (primal-dual with potentials + Dinic on the admissible subgraph)
// ---------------------------------------------------------------------------------------

const INF_CAP = 1 << 30;

/** Growable Int32 column. */
class IntColumn {
  data = new Int32Array(1024);
  length = 0;
  push(v: number): void {
    if (this.length === this.data.length) {
      const bigger = new Int32Array(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.length++] = v;
  }
}

/**
 * Edge list collected while the network is built. Costs are kept symbolic (opt-out flag,
 * location class, load) because the scalar weights depend on the final network size.
 */
class NetworkBuilder {
  nodeCount = 0;
  readonly from = new IntColumn();
  readonly to = new IntColumn();
  readonly cap = new IntColumn();
  /** Location class (0/1/2) on heat -> hub edges, 0 elsewhere. */
  readonly loc = new IntColumn();
  /** 1 on sink edges of opt-out recorders. */
  readonly opt = new IntColumn();
  /** Load-spreading cost on sink edges (the k-th recording of a person costs k-1). */
  readonly load = new IntColumn();
  /** 1: edge into a recorder node (see MinCostFlow, "lazy reverse arcs"). */
  readonly intoRecorder = new IntColumn();

  addNode(): number {
    return this.nodeCount++;
  }

  addEdge(u: number, v: number, cap: number, loc = 0, opt = 0, load = 0, intoRecorder = 0): number {
    this.from.push(u);
    this.to.push(v);
    this.cap.push(cap);
    this.loc.push(loc);
    this.opt.push(opt);
    this.load.push(load);
    this.intoRecorder.push(intoRecorder);
    return this.from.length - 1;
  }

  get edgeCount(): number {
    return this.from.length;
  }
}

/**
 * Residual network: two arcs per edge, adjacency in CSR form. All costs and potentials are
 * integers below 2^53, so float arithmetic on them is exact.
 *
 * Lazy reverse arcs: a recorder node has one incoming edge per time key at which it is
 * eligible (~100), but at most `capLeft` (<= 3) of them carry flow, so only those few
 * reverse arcs have residual capacity. Those reverse arcs are kept out of the recorder's
 * CSR range and listed in `extra[recorderNode]` once they first get capacity, which halves
 * the arcs every Dijkstra / BFS pass has to look at. (Entries whose capacity dropped back
 * to 0 stay listed until the next phase compacts the lists; scans check capacity anyway.)
 */
class MinCostFlow {
  readonly n: number;
  readonly start: Int32Array;
  readonly aTo: Int32Array;
  readonly aCap: Int32Array;
  readonly aCost: Float64Array;
  readonly aRev: Int32Array;
  /** 1: arc into a recorder whose reverse arc is lazy. */
  readonly aLazyFwd: Uint8Array;
  readonly inExtra: Uint8Array;
  readonly extra: (number[] | undefined)[];
  readonly edgeArc: Int32Array;
  readonly pi: Float64Array;
  /** Number of primal-dual phases of the last run (diagnostics). */
  phases = 0;

  constructor(g: NetworkBuilder, cost: Float64Array) {
    const n = g.nodeCount;
    const m = g.edgeCount;
    const from = g.from.data;
    const to = g.to.data;
    const cap = g.cap.data;
    const lazy = g.intoRecorder.data;
    this.n = n;
    const deg = new Int32Array(n + 1);
    let lazyCount = 0;
    for (let e = 0; e < m; e++) {
      deg[from[e]]++;
      if (lazy[e]) lazyCount++;
      else deg[to[e]]++;
    }
    this.start = new Int32Array(n + 1);
    for (let v = 0; v < n; v++) this.start[v + 1] = this.start[v] + deg[v];
    const fill = this.start.slice(0, n);
    let tail = this.start[n]; // lazy reverse arcs live after every CSR range
    const arcs = tail + lazyCount;
    this.aTo = new Int32Array(arcs);
    this.aCap = new Int32Array(arcs);
    this.aCost = new Float64Array(arcs);
    this.aRev = new Int32Array(arcs);
    this.aLazyFwd = new Uint8Array(arcs);
    this.inExtra = new Uint8Array(arcs);
    this.edgeArc = new Int32Array(m);
    for (let e = 0; e < m; e++) {
      const u = from[e];
      const v = to[e];
      const a = fill[u]++;
      const b = lazy[e] ? tail++ : fill[v]++;
      this.aTo[a] = v;
      this.aCap[a] = cap[e];
      this.aCost[a] = cost[e];
      this.aRev[a] = b;
      this.aLazyFwd[a] = lazy[e];
      this.aTo[b] = u;
      this.aCap[b] = 0;
      this.aCost[b] = -cost[e];
      this.aRev[b] = a;
      this.edgeArc[e] = a;
    }
    this.extra = new Array(n);
    for (let e = 0; e < m; e++) if (lazy[e] && this.extra[to[e]] === undefined) this.extra[to[e]] = [];
    this.pi = new Float64Array(n);
  }

  /** Pushes `amount` along arc a, keeping the lazy lists up to date. */
  private push(a: number, amount: number): void {
    const b = this.aRev[a];
    this.aCap[a] -= amount;
    this.aCap[b] += amount;
    if (this.aLazyFwd[a] && !this.inExtra[b]) {
      this.inExtra[b] = 1;
      this.extra[this.aTo[a]]!.push(b);
    }
  }

  /** Drops listed lazy arcs without capacity (between phases, so no iterator is live). */
  private compactExtra(): void {
    for (const list of this.extra) {
      if (list === undefined || list.length === 0) continue;
      let k = 0;
      for (const a of list) {
        if (this.aCap[a] > 0) list[k++] = a;
        else this.inExtra[a] = 0;
      }
      list.length = k;
    }
  }

  /**
   * Successive shortest paths, many units per phase. Invariant: reduced costs
   * cost + pi[u] - pi[v] of residual arcs are >= 0 (true at start: all costs >= 0 and only
   * forward arcs have capacity). Each phase: Dijkstra on reduced costs (stopped when t is
   * settled), pi[v] += min(dist[v], dist[t]) (keeps the invariant and makes every shortest
   * s-t path zero-reduced-cost), then a maximal (Dinic) flow on the zero-reduced-cost arcs.
   * Every augmentation is along a shortest path, so after each phase the flow is min-cost
   * for its value; at the end it is a min-cost maximum flow.
   */
  run(s: number, t: number): void {
    const { n, start, aTo, aCap, aCost, pi, extra } = this;
    const dist = new Float64Array(n);
    const done = new Uint8Array(n);
    const heap = new Int32Array(n);
    const pos = new Int32Array(n);
    const level = new Int32Array(n);
    const iter = new Int32Array(n);
    const queue = new Int32Array(n);
    const pathArcs = new Int32Array(n + 1);
    const pathNodes = new Int32Array(n + 1);
    /** i-th residual arc candidate of u: its CSR range first, then its lazy list. */
    const arcAt = (u: number, i: number): number => {
      const end = start[u + 1];
      if (i < end) return i;
      const list = extra[u];
      return list !== undefined && i - end < list.length ? list[i - end] : -1;
    };

    for (;;) {
      this.compactExtra();
      // ---- Dijkstra (indexed binary heap) --------------------------------------------
      dist.fill(Infinity);
      done.fill(0);
      pos.fill(-1);
      let hs = 0;
      const up = (i: number) => {
        const v = heap[i];
        const dv = dist[v];
        while (i > 0) {
          const p = (i - 1) >> 1;
          const w = heap[p];
          if (dist[w] <= dv) break;
          heap[i] = w;
          pos[w] = i;
          i = p;
        }
        heap[i] = v;
        pos[v] = i;
      };
      const down = (i: number) => {
        const v = heap[i];
        const dv = dist[v];
        for (;;) {
          let c = 2 * i + 1;
          if (c >= hs) break;
          if (c + 1 < hs && dist[heap[c + 1]] < dist[heap[c]]) c++;
          const w = heap[c];
          if (dist[w] >= dv) break;
          heap[i] = w;
          pos[w] = i;
          i = c;
        }
        heap[i] = v;
        pos[v] = i;
      };
      const relax = (a: number, du: number) => {
        if (aCap[a] <= 0) return;
        const v = aTo[a];
        if (done[v]) return;
        const nd = du + aCost[a] - pi[v];
        if (nd < dist[v]) {
          dist[v] = nd;
          if (pos[v] < 0) {
            pos[v] = hs;
            heap[hs++] = v;
          }
          up(pos[v]);
        }
      };
      dist[s] = 0;
      heap[hs++] = s;
      pos[s] = 0;
      while (hs > 0) {
        const u = heap[0];
        hs--;
        pos[u] = -1;
        if (hs > 0) {
          heap[0] = heap[hs];
          pos[heap[0]] = 0;
          down(0);
        }
        done[u] = 1;
        if (u === t) break;
        const du = dist[u] + pi[u];
        for (let a = start[u], end = start[u + 1]; a < end; a++) relax(a, du);
        const list = extra[u];
        if (list !== undefined) for (let k = 0; k < list.length; k++) relax(list[k], du);
      }
      if (!done[t]) return; // no augmenting path left: maximum flow reached
      this.phases++;
      const dt = dist[t];
      for (let v = 0; v < n; v++) pi[v] += dist[v] < dt ? dist[v] : dt;

      // ---- Dinic on the admissible subgraph (residual arcs with reduced cost 0) ------
      for (;;) {
        level.fill(-1);
        level[s] = 0;
        let qh = 0;
        let qt = 0;
        queue[qt++] = s;
        let found = false;
        const label = (a: number, u: number, pu: number): void => {
          if (aCap[a] <= 0) return;
          const v = aTo[a];
          if (level[v] >= 0 || aCost[a] + pu - pi[v] !== 0) return;
          level[v] = level[u] + 1;
          if (v === t) found = true;
          else queue[qt++] = v;
        };
        // Stop as soon as t is labelled: every node closer to s is labelled by then, and
        // the DFS below never enters a node at t's level other than t.
        while (qh < qt && !found) {
          const u = queue[qh++];
          const pu = pi[u];
          for (let a = start[u], end = start[u + 1]; a < end && !found; a++) label(a, u, pu);
          const list = extra[u];
          if (list !== undefined) for (let k = 0; k < list.length && !found; k++) label(list[k], u, pu);
        }
        if (!found) break;
        const lt = level[t];
        for (let v = 0; v < n; v++) iter[v] = start[v];
        // Iterative DFS with current-arc pointers; a node without a way forward is cut off
        // (level -1) for the rest of this round. Arcs listed lazily during the round point
        // one level back and are never admissible in it, so appending them is harmless.
        let depth = 0;
        pathNodes[0] = s;
        for (;;) {
          const u = pathNodes[depth];
          if (u === t) {
            let amount = INF_CAP;
            for (let i = 0; i < depth; i++) if (aCap[pathArcs[i]] < amount) amount = aCap[pathArcs[i]];
            let back = depth;
            for (let i = 0; i < depth; i++) {
              const a = pathArcs[i];
              this.push(a, amount);
              if (aCap[a] === 0 && i < back) back = i;
            }
            depth = back; // resume from the tail of the first saturated arc
            continue;
          }
          let next = -1;
          const pu = pi[u];
          const lu = level[u] + 1;
          for (let a = arcAt(u, iter[u]); a >= 0; a = arcAt(u, ++iter[u])) {
            if (aCap[a] <= 0) continue;
            const v = aTo[a];
            if (level[v] !== lu || (lu === lt && v !== t) || aCost[a] + pu - pi[v] !== 0) continue;
            next = a;
            break;
          }
          if (next >= 0) {
            pathArcs[depth] = next;
            pathNodes[++depth] = aTo[next];
            continue;
          }
          level[u] = -1;
          if (depth === 0) break;
          depth--;
          iter[pathNodes[depth]]++;
        }
      }
    }
  }

  /** Flow on edge e (original capacity minus residual). */
  flowOf(e: number, originalCap: number): number {
    return originalCap - this.aCap[this.edgeArc[e]];
  }
}

// ---------------------------------------------------------------------------------------
// The engine
// ---------------------------------------------------------------------------------------

interface Recorder {
  userId: number;
  city: string | null;
  country: string | null;
  optOut: boolean;
  fixedLoad: number;
  capLeft: number;
  leaf: number; // index of the (city, country) location class
}

interface KeyInfo {
  key: string;
  type: number;
  slot: number;
  num: number;
  heats: EngineHeat[]; // open (not fixed) heats at this time, sorted by id
}

/** Recorders of one location class that are eligible at one time key, cut in chunks. */
interface LeafAtKey {
  leaf: number;
  node: number; // shared leaf node
  chunks: number[][]; // recorder indices, sorted by userId
  chunkNodes: number[]; // node per chunk (== [node] when there is one chunk)
}

/**
 * Recorders per chunk. A heat with rejected recorders gets a private copy of the path down
 * to the chunks that contain them, so a small chunk keeps such copies cheap.
 */
const CHUNK = 64;

export function runMatchingEngine(input: EngineInput): EngineResult {
  const cap = input.maxRecordingsPerPerson ?? DEFAULT_MAX_RECORDINGS_PER_PERSON;
  if (!Number.isInteger(cap) || cap < 0) throw new Error('maxRecordingsPerPerson must be a non-negative integer');

  // ---- Canonical order: everything sorted by ids ------------------------------------
  const participants = [...input.participants].sort((a, b) => a.userId - b.userId);
  for (let i = 1; i < participants.length; i++)
    if (participants[i].userId === participants[i - 1].userId) throw new Error(`duplicate participant ${participants[i].userId}`);
  const heats = [...input.heats].sort((a, b) => a.id - b.id);
  for (let i = 1; i < heats.length; i++) if (heats[i].id === heats[i - 1].id) throw new Error(`duplicate heat ${heats[i].id}`);

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

  const slotOf = buildSlotMap(input.slots);
  const locOf = new Map<number, { city: string | null; country: string | null }>();
  for (const p of participants) locOf.set(p.userId, { city: normLoc(p.city), country: normLoc(p.country) });
  const dancerLoc = (userId: number) => locOf.get(userId) ?? { city: null, country: null };

  // ---- Busy sets (rules 1 and 2), from every heat, fixed ones included ----------------
  // busy(k) = people dancing at k, plus people dancing the heat right before k in the
  // same slot and competition type (buffer).
  const busy = new Map<string, Set<number>>();
  const markBusy = (key: string, userId: number) => {
    let set = busy.get(key);
    if (!set) busy.set(key, (set = new Set()));
    set.add(userId);
  };
  const keys = new Map<string, KeyInfo>();
  for (const h of heats) {
    const slot = slotOf.get(h.divisionId) ?? h.divisionId;
    const key = keyString(h.competitionTypeId, slot, h.heatNumber);
    markBusy(key, h.userId);
    markBusy(keyString(h.competitionTypeId, slot, h.heatNumber + 1), h.userId);
    if (fixedHeat.has(h.id)) continue;
    let info = keys.get(key);
    if (!info) keys.set(key, (info = { key, type: h.competitionTypeId, slot, num: h.heatNumber, heats: [] }));
    info.heats.push(h);
  }
  const keyList = [...keys.values()].sort((a, b) => a.type - b.type || a.slot - b.slot || a.num - b.num);
  const openHeatCount = keyList.reduce((n, k) => n + k.heats.length, 0);

  // ---- Recorders: participants with capacity left; location classes ("leaves") -------
  const leafIndex = new Map<string, number>();
  {
    const leafKeys = new Set<string>();
    for (const p of participants) {
      const l = locOf.get(p.userId)!;
      leafKeys.add(JSON.stringify([l.city, l.country]));
    }
    [...leafKeys].sort(cmpStr).forEach((k, i) => leafIndex.set(k, i));
  }
  const recorders: Recorder[] = [];
  for (const p of participants) {
    const fl = fixedLoad.get(p.userId) ?? 0;
    if (fl >= cap) continue;
    const l = locOf.get(p.userId)!;
    recorders.push({
      userId: p.userId,
      city: l.city,
      country: l.country,
      optOut: p.optOut,
      fixedLoad: fl,
      capLeft: cap - fl,
      leaf: leafIndex.get(JSON.stringify([l.city, l.country]))!,
    });
  }
  const recIndexOfUser = new Map<number, number>();
  recorders.forEach((r, i) => recIndexOfUser.set(r.userId, i));

  // ---- Network -----------------------------------------------------------------------
  // s -> heat node (a group of interchangeable heats: same time key and same dancer
  //      location, no rejected pair; or a single heat with rejected pairs)
  //   -> hub of its time key: city hub (cost class 0), country hub (class 1), any hub
  //      (class 2); a hub reaches the location leaves whose city / country matches
  //   -> leaf (recorders of one (city, country) eligible at that time key)
  //   -> chunk (<= CHUNK recorders of the leaf) -> recorder
  //   -> t through capLeft unit edges: the j-th new recording of a person costs
  //      (fixedLoad + j - 1) (convex), plus the opt-out penalty.
  // Interchangeable heats share nodes, and eligibility depends only on the time key, so
  // the network has O(keys x recorders) edges instead of O(heats x recorders). Rejected
  // pairs are exact: such a heat gets private copies of the hubs / leaves / chunks that
  // contain a rejected recorder, and those copies leave the rejected recorders out.
  // A path through a "worse" hub (e.g. the any hub to a same-city recorder) is allowed but
  // never cheaper than the true class, so optimal flows use true classes (and stats are
  // recomputed from the real pairs anyway).
  const g = new NetworkBuilder();
  const S = g.addNode();
  const T = g.addNode();

  const recorderNode = new Int32Array(recorders.length).fill(-1);
  const nodeRecorder: number[] = []; // node -> recorder index (undefined: not a recorder node)
  const getRecorderNode = (ri: number): number => {
    if (recorderNode[ri] < 0) {
      const v = g.addNode();
      recorderNode[ri] = v;
      nodeRecorder[v] = ri;
      const r = recorders[ri];
      for (let j = 1; j <= r.capLeft; j++) g.addEdge(v, T, 1, 0, r.optOut ? 1 : 0, r.fixedLoad + j - 1);
    }
    return recorderNode[ri];
  };
  const edgeToRecorder = (u: number, ri: number) => g.addEdge(u, getRecorderNode(ri), INF_CAP, 0, 0, 0, 1);

  interface HeatNode {
    node: number;
    sourceEdge: number;
    heats: EngineHeat[]; // sorted by id
  }
  const heatNodes: HeatNode[] = [];
  const eligibleMark = new Uint8Array(recorders.length);

  for (const k of keyList) {
    // Eligible recorders at this time key (rules 1, 2, 4).
    const busyHere = busy.get(k.key) ?? new Set<number>();
    const byLeaf = new Map<number, number[]>();
    eligibleMark.fill(0);
    for (let ri = 0; ri < recorders.length; ri++) {
      const r = recorders[ri];
      if (busyHere.has(r.userId)) continue;
      eligibleMark[ri] = 1;
      let list = byLeaf.get(r.leaf);
      if (!list) byLeaf.set(r.leaf, (list = []));
      list.push(ri);
    }
    if (byLeaf.size === 0) continue; // nobody can record at this time: all unassigned

    // Shared leaf and chunk nodes.
    const leaves: LeafAtKey[] = [];
    const leafAt = new Map<number, LeafAtKey>();
    for (const leaf of [...byLeaf.keys()].sort(cmpNum)) {
      const list = byLeaf.get(leaf)!;
      const chunks: number[][] = [];
      for (let i = 0; i < list.length; i += CHUNK) chunks.push(list.slice(i, i + CHUNK));
      const node = g.addNode();
      let chunkNodes: number[];
      if (chunks.length === 1) chunkNodes = [node];
      else {
        chunkNodes = chunks.map(() => g.addNode());
        for (const c of chunkNodes) g.addEdge(node, c, INF_CAP);
      }
      chunks.forEach((chunk, ci) => {
        for (const ri of chunk) edgeToRecorder(chunkNodes[ci], ri);
      });
      const info = { leaf, node, chunks, chunkNodes };
      leaves.push(info);
      leafAt.set(leaf, info);
    }
    const leafCity = (l: LeafAtKey) => recorders[l.chunks[0][0]].city;
    const leafCountry = (l: LeafAtKey) => recorders[l.chunks[0][0]].country;
    const cityLeaves = new Map<string, LeafAtKey[]>();
    const countryLeaves = new Map<string, LeafAtKey[]>();
    for (const l of leaves) {
      const c = leafCity(l);
      const n = leafCountry(l);
      if (c !== null) (cityLeaves.get(c) ?? cityLeaves.set(c, []).get(c)!).push(l);
      if (n !== null) (countryLeaves.get(n) ?? countryLeaves.set(n, []).get(n)!).push(l);
    }

    // Shared hubs, created on first use.
    const hubs = new Map<string, number>();
    const sharedHub = (id: string, members: LeafAtKey[]): number => {
      let v = hubs.get(id);
      if (v === undefined) {
        v = g.addNode();
        hubs.set(id, v);
        for (const l of members) g.addEdge(v, l.node, INF_CAP);
      }
      return v;
    };
    /** The hubs a dancer at (city, country) may use, with the location class they carry. */
    const hubChoices = (city: string | null, country: string | null) => {
      const out: { id: string; members: LeafAtKey[]; cls: 0 | 1 | 2 }[] = [];
      if (city !== null && cityLeaves.has(city)) out.push({ id: `c:${city}`, members: cityLeaves.get(city)!, cls: 0 });
      if (country !== null && countryLeaves.has(country))
        out.push({ id: `n:${country}`, members: countryLeaves.get(country)!, cls: 1 });
      out.push({ id: 'any', members: leaves, cls: 2 });
      return out;
    };

    // Heats without (effective) rejected pairs: grouped by dancer location.
    const groups = new Map<string, HeatNode>();
    for (const h of k.heats) {
      const banned = forbiddenOf.get(h.id);
      const bannedHere: number[] = [];
      if (banned)
        for (const uid of banned) {
          const ri = recIndexOfUser.get(uid);
          if (ri !== undefined && eligibleMark[ri]) bannedHere.push(ri);
        }
      const loc = dancerLoc(h.userId);
      if (bannedHere.length === 0) {
        const gid = JSON.stringify([loc.city, loc.country]);
        let grp = groups.get(gid);
        if (!grp) {
          const node = g.addNode();
          grp = { node, sourceEdge: -1, heats: [] };
          groups.set(gid, grp);
          heatNodes.push(grp);
          for (const ch of hubChoices(loc.city, loc.country)) g.addEdge(node, sharedHub(ch.id, ch.members), INF_CAP, ch.cls);
        }
        grp.heats.push(h);
        continue;
      }

      // A heat with rejected recorders: private copies of everything containing them.
      bannedHere.sort(cmpNum);
      const bannedSet = new Set(bannedHere);
      const node = g.addNode();
      heatNodes.push({ node, sourceEdge: g.addEdge(S, node, 1), heats: [h] });
      const privateLeaf = new Map<number, number>();
      for (const ri of bannedHere) {
        const l = leafAt.get(recorders[ri].leaf)!;
        if (privateLeaf.has(l.leaf)) continue;
        const pv = g.addNode();
        privateLeaf.set(l.leaf, pv);
        l.chunks.forEach((chunk, ci) => {
          if (chunk.some((x) => bannedSet.has(x))) {
            for (const x of chunk) if (!bannedSet.has(x)) edgeToRecorder(pv, x);
          } else g.addEdge(pv, l.chunkNodes[ci], INF_CAP);
        });
      }
      for (const ch of hubChoices(loc.city, loc.country)) {
        if (!ch.members.some((l) => privateLeaf.has(l.leaf))) {
          g.addEdge(node, sharedHub(ch.id, ch.members), INF_CAP, ch.cls);
          continue;
        }
        const hub = g.addNode();
        g.addEdge(node, hub, INF_CAP, ch.cls);
        for (const l of ch.members) g.addEdge(hub, privateLeaf.get(l.leaf) ?? l.node, INF_CAP);
      }
    }
    for (const grp of groups.values()) grp.sourceEdge = g.addEdge(S, grp.node, grp.heats.length);
  }

  // ---- Scalar weights for the lexicographic objective --------------------------------
  // Cost of one unit = P*optOut + X*[class>=1] + Y*[class==2] + load. The flow is
  // lexicographically optimal iff its residual network has no lexicographically negative
  // cycle, and it suffices to look at simple cycles. In a simple cycle:
  //  - opt-out and load costs sit only on edges into t, and a simple cycle uses at most two
  //    arcs at t (one forward, one backward): |opt| <= 1, |load| <= cap-1;
  //  - location costs sit only on edges out of heat nodes, at most two arcs per heat node:
  //    |class counts| <= B = 2 * (number of heat nodes).
  // With Y = cap, X = Y*B + cap, P = (X+Y)*B + cap, a cycle that is lexicographically
  // negative is also negative in the scalar cost, so a scalar-optimal flow (what the
  // primal-dual algorithm produces) is lexicographically optimal. Maximum coverage needs no
  // weight: successive shortest paths end with a maximum flow.
  const B = 2 * heatNodes.length + 2;
  const Y = Math.max(cap, 1);
  const X = Y * B + cap;
  const P = (X + Y) * B + cap;
  if ((P + X + Y + cap) * 16 > Number.MAX_SAFE_INTEGER) throw new Error('matching network too large for exact weights');
  const m = g.edgeCount;
  const eFrom = g.from.data;
  const eTo = g.to.data;
  const eCap = g.cap.data;
  const cost = new Float64Array(m);
  for (let e = 0; e < m; e++) {
    const l = g.loc.data[e];
    cost[e] = g.opt.data[e] * P + (l >= 1 ? X : 0) + (l === 2 ? Y : 0) + g.load.data[e];
  }

  const mcf = new MinCostFlow(g, cost);
  if (heatNodes.length > 0 && recorders.length > 0) mcf.run(S, T);

  // ---- Decompose the flow into (heat, recorder) pairs, deterministically -------------
  // Forward edges form a DAG (s, heat, hub, leaf, chunk, recorder), so walking from a
  // heat node along edges with flow left always ends at a recorder.
  const outEdges: number[][] = Array.from({ length: g.nodeCount }, () => []);
  const flowLeft = new Int32Array(m);
  for (let e = 0; e < m; e++) {
    const f = mcf.flowOf(e, eCap[e]);
    if (f > 0 && eTo[e] !== T && eFrom[e] !== S) {
      flowLeft[e] = f;
      outEdges[eFrom[e]].push(e);
    }
  }
  const ptr = new Int32Array(g.nodeCount);
  const assignments: EngineAssignment[] = [];
  const unassigned: number[] = [];
  for (const hn of heatNodes) {
    let units = hn.sourceEdge >= 0 ? mcf.flowOf(hn.sourceEdge, eCap[hn.sourceEdge]) : 0;
    for (const h of hn.heats) {
      if (units === 0) {
        unassigned.push(h.id);
        continue;
      }
      units--;
      let u = hn.node;
      while (nodeRecorder[u] === undefined) {
        const list = outEdges[u];
        while (flowLeft[list[ptr[u]]] === 0) ptr[u]++;
        const e = list[ptr[u]];
        flowLeft[e]--;
        u = eTo[e];
      }
      assignments.push({ heatId: h.id, recorderId: recorders[nodeRecorder[u]].userId });
    }
  }
  // Heats at a time key where nobody is eligible never got a node.
  const placed = new Set<number>();
  for (const hn of heatNodes) for (const h of hn.heats) placed.add(h.id);
  for (const k of keyList) for (const h of k.heats) if (!placed.has(h.id)) unassigned.push(h.id);
  assignments.sort((a, b) => a.heatId - b.heatId);
  unassigned.sort(cmpNum);

  // ---- Statistics from the real pairs ------------------------------------------------
  const heatById = new Map<number, EngineHeat>();
  for (const h of heats) heatById.set(h.id, h);
  const load = new Map<number, number>(fixedLoad);
  let optOutUses = 0;
  let sameCity = 0;
  let sameCountry = 0;
  for (const a of assignments) {
    const r = recorders[recIndexOfUser.get(a.recorderId)!];
    const d = dancerLoc(heatById.get(a.heatId)!.userId);
    const cls = locationClass(d.city, d.country, r.city, r.country);
    if (cls === 0) sameCity++;
    else if (cls === 1) sameCountry++;
    if (r.optOut) optOutUses++;
    load.set(a.recorderId, (load.get(a.recorderId) ?? 0) + 1);
  }
  let maxLoad = 0;
  for (const v of load.values()) if (v > maxLoad) maxLoad = v;

  return {
    assignments,
    unassigned,
    stats: { heats: openHeatCount, covered: assignments.length, optOutUses, sameCity, sameCountry, maxLoad },
  };
}

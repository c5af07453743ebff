/**
 * Min-cost max-flow solver used by the matching engine (pure): primal-dual successive
 * shortest paths (Dijkstra with potentials), with a Dinic blocking flow on the
 * zero-reduced-cost subgraph per phase.
 */

export const INF_CAP = 1 << 30;

/** Growable Int32 column (grows by 4x: fewer large copies while a network is built). */
class IntColumn {
  data = new Int32Array(4096);
  length = 0;
  push(v: number): void {
    if (this.length === this.data.length) {
      const bigger = new Int32Array(this.data.length * 4);
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.length++] = v;
  }
}

/** Symbolic cost parts of an edge (see `scalarCosts` in matching.engine.ts). */
export interface EdgeCost {
  /** Location class 0/1/2 (heat -> hub or heat -> previous recorder edges). */
  loc?: number;
  /** 1 on sink edges of opt-out recorders. */
  opt?: number;
  /** Load-spreading cost on sink edges (the k-th recording of a person costs k-1). */
  load?: number;
  /** Fairness cost on sink edges: highest recorder balance minus this recorder's (>= 0). */
  bal?: number;
  /** 1: the unit is a pair that was not suggested before (stability tier). */
  change?: number;
}

/**
 * Edge list collected while the network is built. Costs are kept symbolic because the
 * scalar weights depend on the final network size. Few edges carry a cost and those take
 * few distinct values, so an edge stores the index of its cost in `costs` (0: no cost).
 */
export class NetworkBuilder {
  nodeCount = 0;
  readonly from = new IntColumn();
  readonly to = new IntColumn();
  readonly cap = new IntColumn();
  readonly costId = new IntColumn();
  /** Distinct costs; costs[0] is the zero cost. */
  readonly costs: Required<EdgeCost>[] = [{ loc: 0, opt: 0, load: 0, bal: 0, change: 0 }];
  private readonly costIndex = new Map<string, number>([['0,0,0,0,0', 0]]);
  /** 1: edge into a recorder node (see MinCostFlow, "lazy reverse arcs"). */
  readonly intoRecorder = new IntColumn();

  addNode(): number {
    return this.nodeCount++;
  }

  addEdge(u: number, v: number, cap: number, cost?: EdgeCost, intoRecorder = 0): number {
    this.from.push(u);
    this.to.push(v);
    this.cap.push(cap);
    this.costId.push(cost === undefined ? 0 : this.costIdOf(cost));
    this.intoRecorder.push(intoRecorder);
    return this.from.length - 1;
  }

  private costIdOf(cost: EdgeCost): number {
    const c = {
      loc: cost.loc ?? 0,
      opt: cost.opt ?? 0,
      load: cost.load ?? 0,
      bal: cost.bal ?? 0,
      change: cost.change ?? 0,
    };
    const key = `${c.loc},${c.opt},${c.load},${c.bal},${c.change}`;
    let id = this.costIndex.get(key);
    if (id === undefined) {
      id = this.costs.length;
      this.costs.push(c);
      this.costIndex.set(key, id);
    }
    return id;
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
 *
 * `run` is successive shortest paths, many units per phase. Invariant: reduced costs
 * cost + pi[u] - pi[v] of residual arcs are >= 0 (true at start: all costs >= 0 and only
 * forward arcs have capacity). Each phase: Dijkstra on reduced costs (stopped when t is
 * settled), pi[v] += min(dist[v], dist[t]) (keeps the invariant and makes every shortest
 * s-t path zero-reduced-cost), then a maximal (Dinic) flow on the zero-reduced-cost arcs.
 * Every augmentation is along a shortest path, so after each phase the flow is min-cost
 * for its value; at the end it is a min-cost maximum flow.
 */
export class MinCostFlow {
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
  /** Nodes with an `extra` list (recorder nodes). */
  private readonly extraNodes: number[] = [];
  readonly edgeArc: Int32Array;
  readonly pi: Float64Array;
  /** Number of primal-dual phases of the last run (diagnostics). */
  phases = 0;
  // Scratch arrays of the phases.
  private readonly dist: Float64Array;
  private readonly hops: Int32Array;
  private readonly done: Uint8Array;
  private readonly heap: Int32Array;
  private readonly pos: Int32Array;
  private heapSize = 0;
  /** FIFO of nodes reached at the distance being settled (see shortestPaths). */
  private readonly sameDist: Int32Array;
  private sameCount = 0;
  private readonly level: Int32Array;
  private readonly iter: Int32Array;
  private readonly queue: Int32Array;
  private readonly pathArcs: Int32Array;
  private readonly pathNodes: Int32Array;

  constructor(g: NetworkBuilder, cost: Float64Array) {
    const n = g.nodeCount;
    this.n = n;
    const arcs = this.layOut(g, cost);
    this.start = arcs.start;
    this.aTo = arcs.aTo;
    this.aCap = arcs.aCap;
    this.aCost = arcs.aCost;
    this.aRev = arcs.aRev;
    this.aLazyFwd = arcs.aLazyFwd;
    this.edgeArc = arcs.edgeArc;
    this.inExtra = new Uint8Array(this.aTo.length);
    this.extra = new Array(n);
    for (let e = 0; e < g.edgeCount; e++) {
      const v = g.to.data[e];
      if (g.intoRecorder.data[e] && this.extra[v] === undefined) {
        this.extra[v] = [];
        this.extraNodes.push(v);
      }
    }
    this.pi = new Float64Array(n);
    this.dist = new Float64Array(n);
    this.hops = new Int32Array(n);
    this.done = new Uint8Array(n);
    this.heap = new Int32Array(n);
    this.pos = new Int32Array(n);
    this.sameDist = new Int32Array(n);
    this.level = new Int32Array(n);
    this.iter = new Int32Array(n);
    this.queue = new Int32Array(n);
    this.pathArcs = new Int32Array(n + 1);
    this.pathNodes = new Int32Array(n + 1);
  }

  /** CSR layout of the residual arcs; lazy reverse arcs live after every CSR range. */
  private layOut(g: NetworkBuilder, cost: Float64Array) {
    const n = g.nodeCount;
    const m = g.edgeCount;
    const { data: from } = g.from;
    const { data: to } = g.to;
    const { data: cap } = g.cap;
    const { data: lazy } = g.intoRecorder;
    const deg = new Int32Array(n + 1);
    let lazyCount = 0;
    for (let e = 0; e < m; e++) {
      deg[from[e]]++;
      if (lazy[e]) lazyCount++;
      else deg[to[e]]++;
    }
    const start = new Int32Array(n + 1);
    for (let v = 0; v < n; v++) start[v + 1] = start[v] + deg[v];
    const fill = start.slice(0, n);
    let tail = start[n];
    const arcs = tail + lazyCount;
    const aTo = new Int32Array(arcs);
    const aCap = new Int32Array(arcs);
    const aRev = new Int32Array(arcs);
    const aCost = new Float64Array(arcs);
    const aLazyFwd = new Uint8Array(arcs);
    const edgeArc = new Int32Array(m);
    for (let e = 0; e < m; e++) {
      const a = fill[from[e]]++;
      const b = lazy[e] ? tail++ : fill[to[e]]++;
      aTo[a] = to[e];
      aCap[a] = cap[e];
      aRev[a] = b;
      aLazyFwd[a] = lazy[e];
      aTo[b] = from[e];
      aRev[b] = a;
      aCost[a] = cost[e];
      aCost[b] = -cost[e];
      edgeArc[e] = a;
    }
    return { start, aTo, aCap, aCost, aRev, aLazyFwd, edgeArc };
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
    const { aCap, inExtra } = this;
    for (const v of this.extraNodes) {
      const list = this.extra[v]!;
      let k = 0;
      for (let i = 0; i < list.length; i++) {
        const a = list[i];
        if (aCap[a] > 0) list[k++] = a;
        else inExtra[a] = 0;
      }
      list.length = k;
    }
  }

  /** i-th residual arc candidate of u: its CSR range first, then its lazy list (-1: none). */
  private arcAt(u: number, i: number): number {
    const end = this.start[u + 1];
    if (i < end) return i;
    const list = this.extra[u];
    return list !== undefined && i - end < list.length ? list[i - end] : -1;
  }

  /** Min-cost maximum flow from s to t (see the class comment). */
  run(s: number, t: number): void {
    for (;;) {
      this.compactExtra();
      if (!this.shortestPaths(s, t)) return; // no augmenting path left: maximum flow reached
      this.phases++;
      const { n, pi, dist, done, hops, level } = this;
      const dt = dist[t];
      for (let v = 0; v < n; v++) {
        pi[v] += dist[v] < dt ? dist[v] : dt;
        level[v] = done[v] ? hops[v] : -1;
      }
      // The first round's levels come from the search itself (see shortestPaths).
      this.blockingFlow(s, t);
      while (this.levelGraph(s, t)) this.blockingFlow(s, t);
    }
  }

  // ---- Dijkstra on reduced costs (indexed binary heap) ----------------------------------

  /**
   * Distances from s until t is settled; false when t is unreachable. Ties are broken by
   * the number of arcs (key (dist, hops), compared lexicographically), so that `hops` of a
   * settled node is its level in the admissible subgraph after the potential update: an
   * admissible path to a node at distance <= dist[t] is a shortest path, and every node the
   * BFS of `levelGraph` would label below t's level is settled before t. So the first round
   * of a phase needs no BFS (same levels, same flow).
   * A node reached at the key being settled plus one arc of reduced cost 0 (the common case
   * once potentials have converged) goes to a FIFO queue instead of the heap: the queue
   * stays ordered by key, and the next node is the smaller of its head and the heap's top.
   */
  private shortestPaths(s: number, t: number): boolean {
    const { start, extra, dist, hops, done, pos, sameDist } = this;
    dist.fill(Infinity);
    done.fill(0);
    pos.fill(-1);
    this.heapSize = 0;
    let qh = 0;
    this.sameCount = 0;
    dist[s] = 0;
    hops[s] = 0;
    sameDist[this.sameCount++] = s;
    for (;;) {
      let u: number;
      if (qh < this.sameCount && (this.heapSize === 0 || !this.before(this.heap[0], sameDist[qh]))) u = sameDist[qh++];
      else if (this.heapSize > 0) u = this.popMin();
      else return false;
      if (done[u]) continue;
      done[u] = 1;
      if (u === t) return true;
      const du = dist[u];
      const base = du + this.pi[u];
      const hv = hops[u] + 1;
      for (let a = start[u], end = start[u + 1]; a < end; a++) this.relax(a, base, du, hv);
      const list = extra[u];
      if (list !== undefined) for (let k = 0; k < list.length; k++) this.relax(list[k], base, du, hv);
    }
  }

  private relax(a: number, base: number, du: number, hv: number): void {
    if (this.aCap[a] <= 0) return;
    const v = this.aTo[a];
    if (this.done[v]) return;
    const nd = base + this.aCost[a] - this.pi[v];
    if (nd < this.dist[v] || (nd === this.dist[v] && hv < this.hops[v])) {
      this.dist[v] = nd;
      this.hops[v] = hv;
      if (nd === du) {
        // Queued in key order; a stale heap entry (pos >= 0) keeps the heap ordered and is skipped.
        this.sameDist[this.sameCount++] = v;
        if (this.pos[v] >= 0) this.siftUp(this.pos[v]);
        return;
      }
      if (this.pos[v] < 0) {
        this.pos[v] = this.heapSize;
        this.heap[this.heapSize++] = v;
      }
      this.siftUp(this.pos[v]);
    }
  }

  /** Key order (dist, hops). */
  private before(v: number, w: number): boolean {
    const dv = this.dist[v];
    const dw = this.dist[w];
    return dv < dw || (dv === dw && this.hops[v] < this.hops[w]);
  }

  private popMin(): number {
    const { heap, pos } = this;
    const u = heap[0];
    this.heapSize--;
    pos[u] = -1;
    if (this.heapSize > 0) {
      heap[0] = heap[this.heapSize];
      pos[heap[0]] = 0;
      this.siftDown(0);
    }
    return u;
  }

  private siftUp(i: number): void {
    const { heap, pos } = this;
    const v = heap[i];
    while (i > 0) {
      const p = (i - 1) >> 1;
      const w = heap[p];
      if (!this.before(v, w)) break;
      heap[i] = w;
      pos[w] = i;
      i = p;
    }
    heap[i] = v;
    pos[v] = i;
  }

  private siftDown(i: number): void {
    const { heap, pos, heapSize } = this;
    const v = heap[i];
    for (;;) {
      let c = 2 * i + 1;
      if (c >= heapSize) break;
      if (c + 1 < heapSize && this.before(heap[c + 1], heap[c])) c++;
      const w = heap[c];
      if (!this.before(w, v)) break;
      heap[i] = w;
      pos[w] = i;
      i = c;
    }
    heap[i] = v;
    pos[v] = i;
  }

  // ---- Dinic on the admissible subgraph (residual arcs with reduced cost 0) ------------

  /**
   * BFS levels over admissible arcs; false when t is not reachable. Stops as soon as t is
   * labelled: every node closer to s is labelled by then, and the DFS never enters a node
   * at t's level other than t.
   */
  private levelGraph(s: number, t: number): boolean {
    const { start, extra, aCap, aTo, aCost, pi, level, queue } = this;
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
    while (qh < qt && !found) {
      const u = queue[qh++];
      const pu = pi[u];
      for (let a = start[u], end = start[u + 1]; a < end && !found; a++) label(a, u, pu);
      const list = extra[u];
      if (list !== undefined) for (let k = 0; k < list.length && !found; k++) label(list[k], u, pu);
    }
    return found;
  }

  /**
   * Iterative DFS with current-arc pointers; a node without a way forward is cut off
   * (level -1) for the rest of this round. Arcs listed lazily during the round point one
   * level back and are never admissible in it, so appending them is harmless.
   */
  private blockingFlow(s: number, t: number): void {
    const { level, iter, pathArcs, pathNodes } = this;
    iter.set(this.start.subarray(0, this.n));
    let depth = 0;
    pathNodes[0] = s;
    for (;;) {
      const u = pathNodes[depth];
      if (u === t) {
        depth = this.augmentPath(depth);
        continue;
      }
      const next = this.admissibleArc(u, level[t], t);
      if (next >= 0) {
        pathArcs[depth] = next;
        pathNodes[++depth] = this.aTo[next];
        continue;
      }
      level[u] = -1;
      if (depth === 0) return;
      depth--;
      iter[pathNodes[depth]]++;
    }
  }

  /** Pushes the bottleneck along the current path; returns the depth to resume from. */
  private augmentPath(depth: number): number {
    const { pathArcs, aCap } = this;
    let amount = INF_CAP;
    for (let i = 0; i < depth; i++) if (aCap[pathArcs[i]] < amount) amount = aCap[pathArcs[i]];
    let back = depth;
    for (let i = 0; i < depth; i++) {
      const a = pathArcs[i];
      this.push(a, amount);
      if (aCap[a] === 0 && i < back) back = i;
    }
    return back; // resume from the tail of the first saturated arc
  }

  /** The next admissible arc out of u from its current-arc pointer, or -1. */
  private admissibleArc(u: number, lt: number, t: number): number {
    const { aCap, aTo, aCost, pi, level, iter } = this;
    const pu = pi[u];
    const lu = level[u] + 1;
    for (let a = this.arcAt(u, iter[u]); a >= 0; a = this.arcAt(u, ++iter[u])) {
      if (aCap[a] <= 0) continue;
      const v = aTo[a];
      if (level[v] !== lu || (lu === lt && v !== t) || aCost[a] + pu - pi[v] !== 0) continue;
      return a;
    }
    return -1;
  }

  /** Flow on edge e (original capacity minus residual). */
  flowOf(e: number, originalCap: number): number {
    return originalCap - this.aCap[this.edgeArc[e]];
  }
}

/**
 * Exact read caches for the hot reads (docs/event-day.md "Exact read caches"): an answer is
 * reused only while nothing it was read from changed, whoever changed it (a request of this or
 * another instance, the CLI, the scheduler, psql).
 *
 * - **Change notices**: triggers on the tables the cached reads read (migration
 *   20261126120000_read_cache_notify) send a notice on `wcs_changes` at commit: the table's
 *   name, or `User:<id>` per row of "User". One connection per instance LISTENs; a notice
 *   marks the table (and the row) changed, which invalidates every entry that depends on it.
 * - **Fences**: a read first waits for a fence, a notice this instance sends itself on its own
 *   channel after the read arrived. PostgreSQL delivers notices in commit order, so once the
 *   fence is back every change committed before the read has been seen: the very next read
 *   after a write, on any instance, sees it. Reads arriving together share one fence, sent after
 *   the last of them arrived (as src/lib/batched-reads.ts does for the session check).
 * - **Stamps**: an entry records the notice count taken before its data was read; it is valid
 *   while none of its tables changed after that count. A notice that arrives while the data is
 *   being read thus invalidates it (conservatively).
 * - **Health**: the cache is used only while its LISTEN connection is up and answering fences.
 *   When it fails (error, end, a fence not back within `fenceTimeoutMs`), every entry is dropped,
 *   reads go to the database as without a cache, and the connection is opened again with
 *   backoff; entries read before the failure are never stored.
 *
 * Nothing connects before the first read asks for a fence (that read goes to the database).
 */
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import type { Logger } from './logger.js';

/** Where freshFor keeps a request's fence on the request's own object. */
const FENCE = Symbol('readCacheFence');

/** The channel of the change notices (the triggers of the migration above). */
export const CHANGES_CHANNEL = 'wcs_changes';

export interface ReadCacheSettings {
  /** most bytes (answer bodies) held; the least recently used entries go first */
  maxWeight: number;
  /** a fence not back within this is a failed connection */
  fenceTimeoutMs: number;
  /** first wait before opening the connection again (doubles up to 30 s) */
  reconnectMs: number;
}

const DEFAULT_SETTINGS: ReadCacheSettings = { maxWeight: 64 * 1024 * 1024, fenceTimeoutMs: 2000, reconnectMs: 500 };
/** the change marks of more keys than this are dropped with every entry (rows of "User" accumulate) */
const MAX_CHANGE_KEYS = 100_000;
const MAX_RECONNECT_MS = 30_000;

/** When an entry's data was read: the connection's epoch and the notice count before the read. */
export interface Stamp {
  readonly epoch: number;
  readonly seq: number;
}

interface Entry {
  value: unknown;
  weight: number;
  dependsOn: readonly string[];
  stamp: Stamp;
  /** the shared value this entry holds a reference to (see `shared`) */
  shares?: string;
}

/** A value held once for every entry that names it: weighed once, dropped with its last entry. */
interface Shared {
  value: unknown;
  weight: number;
  refs: number;
}

interface Fence {
  resolve(ok: boolean): void;
  timer: NodeJS.Timeout;
}

export class ReadCache {
  private readonly settings: ReadCacheSettings;
  private readonly fenceChannel = `wcs_fence_${randomBytes(6).toString('hex')}`;
  private client: Client | undefined;
  private state: 'idle' | 'connecting' | 'ready' | 'down' | 'closed' = 'idle';
  private epoch = 0;
  private seq = 0;
  /** key (`Event`, `User:12`, `User:*`) → the notice count when it last changed */
  private readonly changedAt = new Map<string, number>();
  private readonly entries = new Map<string, Entry>();
  private readonly sharedValues = new Map<string, Shared>();
  /** the reads of readThrough in progress, by key, with the stamp taken before each began */
  private readonly reading = new Map<string, { stamp: Stamp; value: Promise<unknown> }>();
  private weight = 0;
  private fenceSeq = 0;
  private readonly fences = new Map<string, Fence>();
  /** the callers waiting for the next fence (it is sent once the one in flight is back) */
  private waiting: { promise: Promise<boolean>; resolve(ok: boolean): void } | undefined;
  private fenceInFlight = false;
  private fenceScheduled = false;
  private retryMs: number;
  private retryTimer: NodeJS.Timeout | undefined;
  private readonly readyWaiters: ((ok: boolean) => void)[] = [];
  private hits = 0;
  private fencesSent = 0;
  /** fences back, and their round trips in all (sent → own notice back and statement done) */
  private fencesBack = 0;
  private fenceSeconds = 0;
  private misses = 0;

  constructor(
    private readonly deps: { connectionString: string; logger: Logger; settings?: Partial<ReadCacheSettings> },
  ) {
    this.settings = { ...DEFAULT_SETTINGS, ...deps.settings };
    this.retryMs = this.settings.reconnectMs;
  }

  /** Whether the cache can be used now (its LISTEN connection is up). */
  get healthy(): boolean {
    return this.state === 'ready';
  }

  /** Counters for tests and benchmarks: answers served from entries, lookups that found none valid. */
  stats() {
    return {
      healthy: this.healthy,
      entries: this.entries.size,
      weight: this.weight,
      hits: this.hits,
      misses: this.misses,
      /** fence statements sent (counted with the pool's in `wcs_db_queries_total`) */
      fences: this.fencesSent,
      /** fences that came back, and the seconds of their round trips in all (every cached read waits for one or two) */
      fencesBack: this.fencesBack,
      fenceSeconds: this.fenceSeconds,
      /** the server process of the LISTEN connection (tests end it) */
      listenerPid: (this.client as (Client & { processID?: number }) | undefined)?.processID,
    };
  }

  /**
   * Opens the LISTEN connection now (src/server.ts at start; otherwise the first read does);
   * resolves true once it listens, false when this attempt failed (it is retried with backoff).
   */
  start(): Promise<boolean> {
    if (this.state === 'ready') return Promise.resolve(true);
    if (this.state === 'closed') return Promise.resolve(false);
    const ready = new Promise<boolean>((resolve) => this.readyWaiters.push(resolve));
    if (this.state === 'idle') this.connect();
    return ready;
  }

  /**
   * Resolves true once every change committed before the call has been seen (a fence), false
   * when the cache cannot be used now (then read from the database). One fence per `owner` (a
   * request): its session check and its read share it.
   */
  freshFor(owner: object): Promise<boolean> {
    // on the owner itself, not in a WeakMap: a WeakMap entry per request is an ephemeron the
    // garbage collector must trace, and the lookup was 1.6 % of a cached hot read's time (issue 29)
    const slot = owner as { [FENCE]?: { cache: ReadCache; fresh: Promise<boolean> } };
    const held = slot[FENCE];
    if (held?.cache === this) return held.fresh;
    const fresh = this.fence();
    slot[FENCE] = { cache: this, fresh };
    return fresh;
  }

  /** See freshFor; a fence of its own. */
  fence(): Promise<boolean> {
    if (this.state !== 'ready') {
      if (this.state === 'idle') this.connect();
      return Promise.resolve(false);
    }
    // the callers of this turn of the event loop (and those arriving while a fence is in
    // flight) share the next fence, sent after the last of them arrived
    if (!this.waiting) {
      let resolve!: (ok: boolean) => void;
      const promise = new Promise<boolean>((r) => (resolve = r));
      this.waiting = { promise, resolve };
    }
    const { promise } = this.waiting;
    this.scheduleFence();
    return promise;
  }

  private scheduleFence(): void {
    if (this.fenceInFlight || this.fenceScheduled || !this.waiting) return;
    this.fenceScheduled = true;
    setImmediate(() => {
      this.fenceScheduled = false;
      const waiting = this.waiting;
      if (this.fenceInFlight || !waiting) return;
      this.waiting = undefined;
      this.fenceInFlight = true;
      void this.sendFence().then((ok) => {
        this.fenceInFlight = false;
        waiting.resolve(ok);
        this.scheduleFence();
      });
    });
  }

  /** The current stamp, to take before reading data to store; undefined when the cache is not usable. */
  stamp(): Stamp | undefined {
    return this.state === 'ready' ? { epoch: this.epoch, seq: this.seq } : undefined;
  }

  /** The value of `key`, unless anything it depends on changed since it was read (call after a fence). */
  get<T>(key: string): T | undefined {
    const entry = this.entries.get(key);
    if (!entry || !this.valid(entry)) {
      if (entry) this.drop(key, entry);
      this.misses++;
      return undefined;
    }
    this.hits++;
    // least recently used goes first
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value as T;
  }

  /**
   * Stores a value read after `stamp` was taken; `dependsOn` names what it was read from: table
   * names, `User:<id>` and `User:*` (a row of "User", and every row, e.g. TRUNCATE).
   */
  set(
    key: string,
    value: unknown,
    weight: number,
    dependsOn: readonly string[],
    stamp: Stamp,
    share?: { id: string; value: unknown; weight: number },
  ): void {
    const entry: Entry = { value, weight, dependsOn, stamp, shares: share?.id };
    if (weight + (share?.weight ?? 0) > this.settings.maxWeight || !this.valid(entry)) return;
    const old = this.entries.get(key);
    if (old) this.drop(key, old);
    if (share) {
      const held = this.sharedValues.get(share.id);
      if (held) held.refs++;
      else {
        this.sharedValues.set(share.id, { value: share.value, weight: share.weight, refs: 1 });
        this.weight += share.weight;
      }
    }
    this.entries.set(key, entry);
    this.weight += weight;
    for (const [oldestKey, oldest] of this.entries) {
      if (this.weight <= this.settings.maxWeight) break;
      this.drop(oldestKey, oldest);
    }
  }

  /**
   * The value held under `id` by other entries, if any: identical answers of many callers (the
   * details of a big event, the same page of messages) are held and weighed once, so that 3 000
   * callers of one 450 KB answer do not evict everything else (docs/event-day.md). Pass the
   * returned value, or a new one, to `set` as `share`.
   */
  shared<T>(id: string): T | undefined {
    return this.sharedValues.get(id)?.value as T | undefined;
  }

  /**
   * The value of `key`, read with `read` when it is absent or anything it depends on changed,
   * and kept for the next callers (call after a fence): the part of an answer that is the same
   * for every caller (the participants of an event's details) is read once, not at each
   * caller's first read (docs/event-day.md, "Cheap misses"). Callers arriving while it is read
   * share that read as long as none of `dependsOn` changed since it began: the rule by which its
   * value, once stored, would answer them (a change of one of them may be one it does not show, so
   * a later caller reads again; a notice of another table, a chat message say, is not). Without a
   * usable cache: `read()`.
   */
  async readThrough<T>(
    key: string,
    dependsOn: readonly string[],
    weigh: (value: T) => number,
    read: () => Promise<T>,
  ): Promise<T> {
    const held = this.get<T>(key);
    if (held !== undefined) return held;
    const stamp = this.stamp();
    if (!stamp) return read();
    const pending = this.reading.get(key);
    if (pending && this.unchangedSince(pending.stamp, dependsOn)) return pending.value as Promise<T>;
    const value = read();
    this.reading.set(key, { stamp, value });
    try {
      const result = await value;
      this.set(key, result, weigh(result), dependsOn, stamp);
      return result;
    } finally {
      if (this.reading.get(key)?.value === value) this.reading.delete(key);
    }
  }

  /** Stops the connection for good (the container's close). */
  async close(): Promise<void> {
    this.state = 'closed';
    clearTimeout(this.retryTimer);
    this.settleReady(false);
    this.clear();
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private valid(entry: Entry): boolean {
    return this.unchangedSince(entry.stamp, entry.dependsOn);
  }

  /** Whether nothing of `dependsOn` changed after `stamp` was taken (on this connection). */
  private unchangedSince(stamp: Stamp, dependsOn: readonly string[]): boolean {
    if (this.state !== 'ready' || stamp.epoch !== this.epoch) return false;
    return dependsOn.every((key) => (this.changedAt.get(key) ?? 0) <= stamp.seq);
  }

  private drop(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.weight -= entry.weight;
    if (entry.shares === undefined) return;
    const held = this.sharedValues.get(entry.shares);
    if (held && --held.refs === 0) {
      this.sharedValues.delete(entry.shares);
      this.weight -= held.weight;
    }
  }

  /** Drops every entry and change mark; entries being read now are not stored (new epoch). */
  private clearEntries(): void {
    this.epoch++;
    this.entries.clear();
    this.sharedValues.clear();
    this.changedAt.clear();
    this.weight = 0;
  }

  private clear(): void {
    this.clearEntries();
    for (const fence of this.fences.values()) {
      clearTimeout(fence.timer);
      fence.resolve(false);
    }
    this.fences.clear();
    this.waiting?.resolve(false);
    this.waiting = undefined;
  }

  private changed(payload: string): void {
    if (this.changedAt.size >= MAX_CHANGE_KEYS) this.clearEntries();
    const seq = ++this.seq;
    const separator = payload.indexOf(':');
    if (separator < 0) {
      // a whole table (a statement, or TRUNCATE of a per-row table)
      this.changedAt.set(payload, seq);
      this.changedAt.set(`${payload}:*`, seq);
    } else {
      this.changedAt.set(payload, seq);
      this.changedAt.set(payload.slice(0, separator), seq);
    }
  }

  /**
   * One fence: true once its own notice is back (every notice committed before it came first),
   * and its statement finished (one statement at a time on the connection).
   */
  private async sendFence(): Promise<boolean> {
    const client = this.client;
    if (this.state !== 'ready' || !client) return false;
    const id = String(++this.fenceSeq);
    this.fencesSent++;
    const sentAt = performance.now();
    const epoch = this.epoch;
    const noticed = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        this.fail(client, new Error(`a fence was not back within ${this.settings.fenceTimeoutMs} ms`));
      }, this.settings.fenceTimeoutMs);
      this.fences.set(id, { resolve, timer });
    });
    // NOTIFY itself (the channel is this instance's own name, the payload a number): a
    // statement of the simple protocol that PostgreSQL does not plan, unlike SELECT pg_notify(…)
    const sent = client.query(`NOTIFY ${this.fenceChannel}, '${id}'`).then(
      () => true,
      (err: unknown) => {
        this.fail(client, err);
        return false;
      },
    );
    const [ok, done] = await Promise.all([noticed, sent]);
    if (ok && done) {
      this.fencesBack++;
      this.fenceSeconds += (performance.now() - sentAt) / 1000;
    }
    return ok && done && epoch === this.epoch && this.state === 'ready';
  }

  private connect(): void {
    this.state = 'connecting';
    const client = new Client({
      connectionString: this.deps.connectionString,
      connectionTimeoutMillis: 5000,
      application_name: 'wcs read cache',
    });
    this.client = client;
    client.on('error', (err) => this.fail(client, err));
    client.on('end', () => this.fail(client, new Error('connection ended')));
    client.on('notification', (msg) => {
      if (client !== this.client) return;
      if (msg.channel === CHANGES_CHANNEL) return this.changed(msg.payload ?? '');
      const fence = this.fences.get(msg.payload ?? '');
      if (msg.channel !== this.fenceChannel || !fence) return;
      this.fences.delete(msg.payload ?? '');
      clearTimeout(fence.timer);
      fence.resolve(true);
    });
    client
      .connect()
      // a fence commits a notice: it needs no durability, so its commit does not wait for the WAL flush
      .then(() => client.query(`SET synchronous_commit TO off; LISTEN ${CHANGES_CHANNEL}; LISTEN ${this.fenceChannel}`))
      .then(
        () => {
          if (client !== this.client || this.state !== 'connecting') return;
          // entries of an earlier connection were dropped when it failed; none are stored across
          this.clear();
          this.state = 'ready';
          this.retryMs = this.settings.reconnectMs;
          this.deps.logger.info('read cache: listening for changes');
          this.settleReady(true);
        },
        (err: unknown) => this.fail(client, err),
      );
  }

  private settleReady(ok: boolean): void {
    for (const resolve of this.readyWaiters.splice(0)) resolve(ok);
  }

  /** The connection failed: drop everything, read from the database, open it again later. */
  private fail(client: Client, err: unknown): void {
    if (client !== this.client || this.state === 'closed') return;
    const wasReady = this.state === 'ready';
    this.state = 'down';
    this.client = undefined;
    this.clear();
    client.removeAllListeners('notification');
    client.on('error', () => undefined);
    void client.end().catch(() => undefined);
    this.settleReady(false);
    const reason = err instanceof Error ? err.message : String(err);
    if (wasReady) this.deps.logger.warn({ reason }, 'read cache: change notices lost; reads go to the database');
    this.retryTimer = setTimeout(() => {
      if (this.state === 'down') this.connect();
    }, this.retryMs);
    this.retryTimer.unref();
    this.retryMs = Math.min(this.retryMs * 2, MAX_RECONNECT_MS);
  }
}

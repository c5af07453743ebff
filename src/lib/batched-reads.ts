/**
 * Reads of many keys in one statement, for reads every request or handshake makes (the token's
 * user): the keys asked for while a batch is being collected go to the database together, so
 * a thousand handshakes at once cost a handful of statements instead of a thousand queued
 * queries (and 503s once the pool's queue is full).
 *
 * Never a cache: a key is always read by a statement sent after it was asked for (a batch is
 * closed when its statement is sent; later calls wait for the next batch), so a change committed
 * before the call is always seen. Batches are collected for one turn of the event loop
 * (setImmediate) and while `maxInFlight` statements are already running, which is when waiting
 * costs nothing: under no load a call costs one statement, as before.
 */
import { POOL_QUEUE_FULL } from './database-pool.js';

export interface BatchedReadOptions {
  /** most keys per statement */
  maxBatch: number;
  /** most statements running at once; further keys wait for one to finish */
  maxInFlight: number;
  /**
   * longest wait of a key for its statement to be sent (as the pool's wait for a connection,
   * DATABASE_POOL_TIMEOUT_MS): past it the call fails like a full pool (503), so statements
   * stuck on a lock never hold later callers forever
   */
  maxWaitMs: number;
}

interface Waiter<V> {
  since: number;
  resolve(value: V | undefined): void;
  reject(err: unknown): void;
}

export class BatchedReads<K, V> {
  private pending = new Map<K, Waiter<V>[]>();
  private scheduled = false;
  private inFlight = 0;
  private expiry: NodeJS.Timeout | undefined;

  /** `read(keys)`: the values of the keys that exist (a missing key resolves to undefined). */
  constructor(
    private readonly read: (keys: K[]) => Promise<Map<K, V>>,
    private readonly options: BatchedReadOptions = { maxBatch: 500, maxInFlight: 2, maxWaitMs: 5000 },
  ) {}

  load(key: K): Promise<V | undefined> {
    return new Promise<V | undefined>((resolve, reject) => {
      const waiter = { since: Date.now(), resolve, reject };
      const waiters = this.pending.get(key);
      if (waiters) waiters.push(waiter);
      else this.pending.set(key, [waiter]);
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.pending.size === 0) return;
    if (this.inFlight >= this.options.maxInFlight) return this.watchExpiry();
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  /** While keys wait for a running statement, fails those waiting longer than maxWaitMs. */
  private watchExpiry(): void {
    if (this.expiry) return;
    this.expiry = setTimeout(
      () => {
        this.expiry = undefined;
        const oldest = Date.now() - this.options.maxWaitMs;
        for (const [key, waiters] of this.pending) {
          const expired = waiters.filter((w) => w.since <= oldest);
          if (expired.length === 0) continue;
          for (const w of expired) w.reject(new Error(POOL_QUEUE_FULL));
          if (expired.length === waiters.length) this.pending.delete(key);
          else
            this.pending.set(
              key,
              waiters.filter((w) => w.since > oldest),
            );
        }
        if (this.pending.size > 0 && this.inFlight >= this.options.maxInFlight) this.watchExpiry();
      },
      Math.max(10, this.options.maxWaitMs / 4),
    );
    this.expiry.unref();
  }

  private flush(): void {
    this.scheduled = false;
    const batch = new Map<K, Waiter<V>[]>();
    for (const [key, waiters] of this.pending) {
      if (batch.size >= this.options.maxBatch) break;
      batch.set(key, waiters);
    }
    for (const key of batch.keys()) this.pending.delete(key);
    if (batch.size === 0) return;
    this.inFlight++;
    this.read([...batch.keys()])
      .then(
        (values) => {
          for (const [key, waiters] of batch) for (const w of waiters) w.resolve(values.get(key));
        },
        (err: unknown) => {
          for (const waiters of batch.values()) for (const w of waiters) w.reject(err);
        },
      )
      .finally(() => {
        this.inFlight--;
        this.schedule();
      });
    // more keys than one statement takes: the next batch may start at once
    this.schedule();
  }
}

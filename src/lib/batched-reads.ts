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
export interface BatchedReadOptions {
  /** most keys per statement */
  maxBatch: number;
  /** most statements running at once; further keys wait for one to finish */
  maxInFlight: number;
}

interface Waiter<V> {
  resolve(value: V | undefined): void;
  reject(err: unknown): void;
}

export class BatchedReads<K, V> {
  private pending = new Map<K, Waiter<V>[]>();
  private scheduled = false;
  private inFlight = 0;

  /** `read(keys)`: the values of the keys that exist (a missing key resolves to undefined). */
  constructor(
    private readonly read: (keys: K[]) => Promise<Map<K, V>>,
    private readonly options: BatchedReadOptions = { maxBatch: 500, maxInFlight: 2 },
  ) {}

  load(key: K): Promise<V | undefined> {
    return new Promise<V | undefined>((resolve, reject) => {
      const waiters = this.pending.get(key);
      if (waiters) waiters.push({ resolve, reject });
      else this.pending.set(key, [{ resolve, reject }]);
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.options.maxInFlight || this.pending.size === 0) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
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
    this.read([...batch.keys()]).then(
      (values) => {
        for (const [key, waiters] of batch) for (const w of waiters) w.resolve(values.get(key));
      },
      (err: unknown) => {
        for (const waiters of batch.values()) for (const w of waiters) w.reject(err);
      },
    ).finally(() => {
      this.inFlight--;
      this.schedule();
    });
    // more keys than one statement takes: the next batch may start at once
    this.schedule();
  }
}

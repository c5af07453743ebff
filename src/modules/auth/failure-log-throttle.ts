/**
 * Aggregates repeated failures of one key (e.g. an IP address) for the activity log: the first
 * failure of a key is logged at once, later ones within `intervalMs` are only counted, and the
 * next failure after the interval is logged with the count of failures since the last entry.
 * Pure: the caller passes the time. At most `maxKeys` keys are kept (stale ones are dropped
 * first, then the oldest).
 */
export class FailureLogThrottle {
  private readonly keys = new Map<string, { loggedAt: number; unlogged: number }>();

  constructor(
    private readonly intervalMs: number,
    private readonly maxKeys = 10_000,
  ) {}

  /** Counts a failure; answers the number of failures the new entry stands for, or undefined to log nothing. */
  take(key: string, now: number): number | undefined {
    const state = this.keys.get(key);
    if (state && now - state.loggedAt < this.intervalMs) {
      state.unlogged++;
      return undefined;
    }
    const count = (state?.unlogged ?? 0) + 1;
    this.keys.delete(key);
    this.prune(now);
    this.keys.set(key, { loggedAt: now, unlogged: 0 });
    return count;
  }

  private prune(now: number): void {
    if (this.keys.size < this.maxKeys) return;
    for (const [key, state] of this.keys) if (now - state.loggedAt >= this.intervalMs) this.keys.delete(key);
    // still full: drop the oldest (Map keeps insertion order, and take() re-inserts)
    for (const key of this.keys.keys()) {
      if (this.keys.size < this.maxKeys) break;
      this.keys.delete(key);
    }
  }
}

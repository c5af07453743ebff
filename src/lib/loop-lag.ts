/**
 * How late this process's event loop runs, for shedding work early (src/realtime/io.ts refuses
 * socket handshakes while it lags, docs/event-day.md "Shedding handshakes"). A timer ticks every
 * `intervalMs`; the loop lags while the last tick came more than `thresholdMs` late, or while
 * the next tick is overdue by more than that (the loop is busy right now: callbacks queued behind
 * a long one run before the timer can tell).
 */
export class LoopLag {
  private last = performance.now();
  private lastLagMs = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly thresholdMs: number,
    private readonly intervalMs = 50,
  ) {
    this.timer = setInterval(() => {
      const now = performance.now();
      this.lastLagMs = Math.max(0, now - this.last - this.intervalMs);
      this.last = now;
    }, intervalMs);
    this.timer.unref();
  }

  /** The current lag in milliseconds: the last tick's, or the overdue time of the next one if larger. */
  get lagMs(): number {
    return Math.max(this.lastLagMs, performance.now() - this.last - this.intervalMs);
  }

  get lagging(): boolean {
    return this.lagMs > this.thresholdMs;
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

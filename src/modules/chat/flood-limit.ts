/**
 * Per-user flood limit for chat messages: a token bucket refilled at `ratePerSecond` holding at
 * most `burst` tokens. One token per message. In-process state: with several instances each
 * applies the limit on its own (a user's sockets usually stay on one instance).
 */
/** What a flood limit needs: one token per message and user. */
export interface FloodLimiter {
  take(key: number): boolean;
}

export class TokenBucketLimiter implements FloodLimiter {
  private readonly buckets = new Map<number, { tokens: number; at: number }>();
  private calls = 0;

  constructor(
    private readonly ratePerSecond = 5,
    private readonly burst = 10,
    private readonly now: () => number = () => Date.now(),
  ) {}

  /** true when the user may send now (and a token is taken). */
  take(key: number): boolean {
    const now = this.now();
    if (++this.calls % 1000 === 0) this.sweep(now);
    const bucket = this.buckets.get(key) ?? { tokens: this.burst, at: now };
    bucket.tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.at) / 1000) * this.ratePerSecond);
    bucket.at = now;
    const allowed = bucket.tokens >= 1;
    if (allowed) bucket.tokens -= 1;
    this.buckets.set(key, bucket);
    return allowed;
  }

  /** Forgets buckets that are full again (idle users), so the map does not grow forever. */
  private sweep(now: number): void {
    const fullAfterMs = (this.burst / this.ratePerSecond) * 1000;
    for (const [key, bucket] of this.buckets) if (now - bucket.at >= fullAfterMs) this.buckets.delete(key);
  }
}

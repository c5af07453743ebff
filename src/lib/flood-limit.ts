/**
 * Per-user flood limit for chat messages: a token bucket refilled at `ratePerSecond` holding at
 * most `burst` tokens. One token per message. In-process state: with several instances each
 * applies the limit on its own (a user's sockets usually stay on one instance).
 */
/**
 * What a flood limit needs: one token per action and key (a user id, a socket id); true when
 * the action may happen now. A shared limit (src/modules/chat/redis-flood-limit.ts) answers asynchronously, so
 * callers await the answer.
 */
export interface FloodLimiter<K = number> {
  take(key: K): boolean | Promise<boolean>;
}

/** A limit kept in this process, whose token can be given back when the action it paid for did not happen. */
export interface RefundableLimiter<K = number> extends FloodLimiter<K> {
  take(key: K): boolean;
  refund(key: K): void;
  /** whole seconds (≥ 1) until the key's bucket holds a token again: the `Retry-After` of a refusal */
  retryAfterSeconds(key: K): number;
}

export class TokenBucketLimiter<K = number> implements RefundableLimiter<K> {
  private readonly buckets = new Map<K, { tokens: number; at: number }>();
  private calls = 0;

  constructor(
    private readonly ratePerSecond = 5,
    private readonly burst = 10,
    private readonly now: () => number = () => Date.now(),
  ) {}

  /** true when the user may send now (and `cost` tokens are taken: 1 a message, or e.g. bytes). */
  take(key: K, cost = 1): boolean {
    const now = this.now();
    if (++this.calls % 1000 === 0) this.sweep(now);
    const bucket = this.buckets.get(key) ?? { tokens: this.burst, at: now };
    bucket.tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.at) / 1000) * this.ratePerSecond);
    bucket.at = now;
    const allowed = bucket.tokens >= cost;
    if (allowed) bucket.tokens -= cost;
    this.buckets.set(key, bucket);
    return allowed;
  }

  /** Gives back a token taken by `take` (never beyond the burst). */
  refund(key: K): void {
    const bucket = this.buckets.get(key);
    if (bucket) bucket.tokens = Math.min(this.burst, bucket.tokens + 1);
  }

  retryAfterSeconds(key: K): number {
    const bucket = this.buckets.get(key);
    if (!bucket) return 1;
    const tokens = Math.min(this.burst, bucket.tokens + ((this.now() - bucket.at) / 1000) * this.ratePerSecond);
    return Math.max(1, Math.ceil((1 - tokens) / this.ratePerSecond));
  }

  /** Forgets buckets that are full again (idle users), so the map does not grow forever. */
  private sweep(now: number): void {
    const fullAfterMs = (this.burst / this.ratePerSecond) * 1000;
    for (const [key, bucket] of this.buckets) if (now - bucket.at >= fullAfterMs) this.buckets.delete(key);
  }
}

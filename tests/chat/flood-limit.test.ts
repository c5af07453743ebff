import { TokenBucketLimiter } from '../../src/modules/chat/flood-limit';

describe('TokenBucketLimiter', () => {
  it('allows a burst, refuses beyond it, refills at the rate, and keeps users apart', () => {
    let now = 1_000_000;
    const limiter = new TokenBucketLimiter(5, 10, () => now);
    const burst = Array.from({ length: 12 }, () => limiter.take(1));
    expect(burst.filter(Boolean)).toHaveLength(10);
    expect(limiter.take(2)).toBe(true);
    now += 200; // one token back at 5 per second
    expect(limiter.take(1)).toBe(true);
    expect(limiter.take(1)).toBe(false);
    now += 60_000; // never more than the burst
    expect(Array.from({ length: 11 }, () => limiter.take(1)).filter(Boolean)).toHaveLength(10);
  });
});

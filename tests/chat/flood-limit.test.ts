import { TokenBucketLimiter } from '../../src/lib/flood-limit';

describe('TokenBucketLimiter', () => {
  it('allows a burst, refuses beyond it, refills at the rate, and keeps users apart', async () => {
    let now = 1_000_000;
    const limiter = new TokenBucketLimiter(5, 10, () => now);
    const takes = async (key: number, n: number) => {
      const results: boolean[] = [];
      for (let i = 0; i < n; i++) results.push(await limiter.take(key));
      return results.filter(Boolean).length;
    };
    expect(await takes(1, 12)).toBe(10);
    expect(await limiter.take(2)).toBe(true);
    now += 200; // one token back at 5 per second
    expect(await limiter.take(1)).toBe(true);
    expect(await limiter.take(1)).toBe(false);
    now += 60_000; // never more than the burst
    expect(await takes(1, 11)).toBe(10);
  });
});

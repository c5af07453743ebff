import { createHash } from 'node:crypto';
import type { Logger } from '../../lib/logger.js';
import type { RedisConnections } from '../../lib/redis.js';
import { TokenBucketLimiter, type FloodLimiter } from '../../lib/flood-limit.js';

/** ~5 chat messages per second with bursts of 10, per user, event and private chats together */
export const CHAT_FLOOD_LIMIT = { ratePerSecond: 5, burst: 10 } as const;

/**
 * The chat flood limiter of the container: per instance, or with REDIS_URL one bucket per user
 * in Redis shared by every instance, falling back to the per-instance bucket while Redis fails.
 */
export function createChatFloodLimiter(redis: RedisConnections, logger: Logger, now: () => number): FloodLimiter {
  const local = new TokenBucketLimiter(CHAT_FLOOD_LIMIT.ratePerSecond, CHAT_FLOOD_LIMIT.burst, now);
  if (!redis.enabled) return local;
  // through redis.call: at once a failure while Redis is known to be down, else within its deadline (issue 23)
  return new RedisTokenBucketLimiter((args) => redis.call((client) => client.sendCommand(args)), local, logger, {
    ...CHAT_FLOOD_LIMIT,
    keyPrefix: `${redis.keyPrefix}chat-flood:`,
    now,
  });
}

/**
 * The token bucket of TokenBucketLimiter, kept in Redis so every instance draws on the same
 * bucket per user (docs/operations.md "Scaling out with Redis"). One Lua script reads, refills, takes and
 * writes atomically: concurrent messages on several instances cannot overdraw. A bucket is a
 * hash { tokens, at } that expires once it would be full again (idle users cost nothing).
 * `now` comes from the caller's clock, so all instances need roughly synchronised clocks; time
 * never runs backwards for a bucket (an older `now` refills nothing).
 */
const TAKE_SCRIPT = `
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(state[1]) or burst
local at = tonumber(state[2]) or now
if now > at then
  tokens = math.min(burst, tokens + (now - at) * rate / 1000)
  at = now
end
local allowed = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(at))
redis.call('PEXPIRE', KEYS[1], math.ceil(burst / rate * 1000))
return allowed
`;
const TAKE_SHA = createHash('sha1').update(TAKE_SCRIPT).digest('hex');

/** Sends one raw command (the container passes the shared command connection's sendCommand). */
export type RedisSend = (args: string[]) => Promise<unknown>;

export interface RedisTokenBucketOptions {
  ratePerSecond: number;
  burst: number;
  /** key of a user's bucket: `${keyPrefix}${userId}` */
  keyPrefix: string;
  now: () => number;
  /** Redis must answer within this, else the fallback decides (default 1000 ms) */
  timeoutMs?: number;
  /** after a failure, Redis is tried again after this long; the fallback decides meanwhile (default 5000 ms) */
  retryAfterMs?: number;
}

/**
 * Flood limit shared through Redis. If Redis fails or does not answer within `timeoutMs`,
 * `fallback` (the per-instance bucket) decides instead, for `retryAfterMs` before Redis is tried
 * again, so a dead Redis delays at most one message per interval. Logged once when the shared
 * limit is lost and once when it is back, never per message.
 */
export class RedisTokenBucketLimiter implements FloodLimiter {
  private readonly timeoutMs: number;
  private readonly retryAfterMs: number;
  private degraded = false;
  private retryAt = 0;

  constructor(
    private readonly send: RedisSend,
    private readonly fallback: FloodLimiter,
    private readonly logger: Logger,
    private readonly options: RedisTokenBucketOptions,
  ) {
    this.timeoutMs = options.timeoutMs ?? 1000;
    this.retryAfterMs = options.retryAfterMs ?? 5000;
  }

  async take(key: number): Promise<boolean> {
    const now = this.options.now();
    if (this.degraded && now < this.retryAt) return this.fallback.take(key);
    try {
      const allowed = await this.withinTimeout(this.takeShared(key, now));
      if (this.degraded) {
        this.degraded = false;
        this.logger.info('chat flood limit: Redis answers again, the limit is shared across instances again');
      }
      return allowed;
    } catch (err) {
      if (!this.degraded) {
        this.degraded = true;
        this.logger.warn(
          { reason: (err as Error)?.message },
          'chat flood limit: Redis failed or did not answer; limiting per instance until it answers again',
        );
      }
      this.retryAt = now + this.retryAfterMs;
      return this.fallback.take(key);
    }
  }

  private async takeShared(key: number, now: number): Promise<boolean> {
    const args = [
      '1',
      `${this.options.keyPrefix}${key}`,
      String(this.options.ratePerSecond),
      String(this.options.burst),
      String(now),
    ];
    try {
      return Number(await this.send(['EVALSHA', TAKE_SHA, ...args])) === 1;
    } catch (err) {
      // first use on this Redis (or after a restart or SCRIPT FLUSH): send the script itself
      if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
      return Number(await this.send(['EVAL', TAKE_SCRIPT, ...args])) === 1;
    }
  }

  private withinTimeout<T>(promise: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`Redis did not answer within ${this.timeoutMs} ms`)), this.timeoutMs);
    });
    return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
  }
}

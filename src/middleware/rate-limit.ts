import type { Request, RequestHandler } from 'express';
import { rateLimit, type Options } from 'express-rate-limit';
import { RedisStore } from 'rate-limit-redis';
import type { Config } from '../config/index.js';
import { AppError } from '../lib/errors.js';
import type { Logger } from '../lib/logger.js';
import { REDIS_DEADLINE_MS, RedisUnavailableError, type RedisConnections } from '../lib/redis.js';
import { isWarmUpRequest } from '../lib/warm-up.js';

/**
 * Rate limiters in three tiers, per client IP (docs/operations.md "Configuration"):
 * general API (300/min), authentication (login, register: 20/15 min) and e-mail sending
 * (resend, reset request, registry lookup: 5/hour). All configurable (RATE_LIMIT_*),
 * switched off by RATE_LIMIT_ENABLED=false. With REDIS_URL the counters live in Redis so
 * several service instances share them; otherwise in memory.
 */
export type Tier = 'general' | 'auth' | 'email';
/**
 * The tiers, and `metricsFailures`: failed scrapes of GET /api/metrics (401) per IP, in a counter of
 * their own with the auth tier's numbers; past it every scrape from that IP gets 429 until the
 * window frees (successful scrapes never count).
 */
export type RateLimiters = Record<Tier, RequestHandler> & { metricsFailures: RequestHandler };

const messages: Record<Tier, string> = {
  general: 'Too many requests, please try again later',
  auth: 'Too many authentication attempts, please try again later',
  email: 'Too many e-mail requests, please try again later',
};

/** A counter other than a tier's own: its name (Redis keys) and message, counting only failed requests (metrics scrapes) or counting per signed-in user (perUser). */
interface Variant {
  name: string;
  message?: string;
  skipSuccessfulRequests?: true;
  perUser?: true;
}

function createLimiter(
  tier: Tier,
  config: Config,
  redis: RedisConnections,
  logger: Logger,
  variant?: Variant,
): RequestHandler {
  const message = variant?.message ?? messages[tier];
  const options: Partial<Options> = {
    // per signed-in user instead of per IP (after requireAuth): counters of their own
    ...(variant?.perUser ? { keyGenerator: (req: Request) => `user:${req.user?.id ?? 0}` } : {}),
    windowMs: config.rateLimit[tier].windowMs,
    limit: () => config.rateLimit[tier].max,
    standardHeaders: 'draft-7',
    legacyHeaders: false,
    skipSuccessfulRequests: variant?.skipSuccessfulRequests ?? false,
    // the start-up's warm-up (src/lib/warm-up.ts) is not a client
    skip: (req: Request) => !config.rateLimit.enabled || isWarmUpRequest(req),
    // 429 in the service's error envelope; the RateLimit-* and Retry-After headers are already set.
    handler: (_req, _res, next) => next(new AppError('RATE_LIMITED', { message })),
  };
  // this instance's counters: without Redis, and with Redis while it is down (issue 23)
  const local = rateLimit(options);
  if (!redis.enabled) return local;
  const client = redis.command();
  const shared = rateLimit({
    ...options,
    store: new RedisStore({
      prefix: `${redis.keyPrefix}rl:${variant?.name ?? tier}:`,
      sendCommand: (...args: string[]) => client.sendCommand(args),
    }),
    // a store error reaches the wrapper below, which falls back to this instance's counters
    passOnStoreError: false,
  });
  return sharedOrLocal(shared, local, redis, tier, logger);
}

/**
 * Redis trouble must not take the API down nor hold a request (DECISIONS "Redis trouble"): while
 * Redis is down the request is counted by this instance's limiter at once; a store error or a
 * store that does not answer within REDIS_DEADLINE_MS marks Redis down (src/lib/redis.ts logs it
 * once) and the request goes to this instance's limiter instead.
 */
function sharedOrLocal(
  shared: RequestHandler,
  local: RequestHandler,
  redis: RedisConnections,
  tier: Tier,
  logger: Logger,
): RequestHandler {
  return (req, res, next) => {
    if (!redis.available) return void local(req, res, next);
    let settled = false;
    const fallBack = (err: unknown) => {
      settled = true;
      clearTimeout(timer);
      redis.reportFailure(err, `rate limit (${tier})`);
      logger.debug({ tier }, 'rate-limit store failed; counted by this instance');
      void local(req, res, next);
    };
    const timer = setTimeout(
      () => fallBack(new RedisUnavailableError(`Redis did not answer within ${REDIS_DEADLINE_MS} ms`)),
      REDIS_DEADLINE_MS,
    );
    void shared(req, res, (err?: unknown) => {
      if (settled) return;
      if (err !== undefined && !(err instanceof AppError)) return fallBack(err);
      settled = true;
      clearTimeout(timer);
      next(err);
    });
  };
}

/**
 * A limiter of a tier's size counted per signed-in user (`name` keeps its counters apart from the
 * tier's per-IP ones), e.g. the data export: the e-mail tier per user (src/modules/privacy).
 */
export function createUserRateLimiter(
  tier: Tier,
  name: string,
  config: Config,
  redis: RedisConnections,
  logger: Logger,
): RequestHandler {
  return createLimiter(tier, config, redis, logger, { name, perUser: true });
}

export function createRateLimiters(config: Config, redis: RedisConnections, logger: Logger): RateLimiters {
  return {
    general: createLimiter('general', config, redis, logger),
    auth: createLimiter('auth', config, redis, logger),
    email: createLimiter('email', config, redis, logger),
    metricsFailures: createLimiter('auth', config, redis, logger, {
      name: 'metrics-failures',
      message: 'Too many failed metrics scrapes, please try again later',
      skipSuccessfulRequests: true,
    }),
  };
}

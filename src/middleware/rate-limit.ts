import type { Request, RequestHandler } from 'express';
import { rateLimit, type Options } from 'express-rate-limit';
import { RedisStore } from 'rate-limit-redis';
import type { Config } from '../config/index.js';
import { AppError } from '../lib/errors.js';
import type { Logger } from '../lib/logger.js';
import type { RedisConnections } from '../lib/redis.js';

/**
 * Rate limiters in three tiers, per client IP (README "Configuration"):
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

function createLimiter(tier: Tier, config: Config, redis: RedisConnections, logger: Logger, variant?: Variant): RequestHandler {
  const message = variant?.message ?? messages[tier];
  const options: Partial<Options> = {
    // per signed-in user instead of per IP (after requireAuth): counters of their own
    ...(variant?.perUser ? { keyGenerator: (req: Request) => `user:${req.user?.id ?? 0}` } : {}),
    windowMs: config.rateLimit[tier].windowMs,
    limit: () => config.rateLimit[tier].max,
    standardHeaders: 'draft-7',
    legacyHeaders: false,
    skipSuccessfulRequests: variant?.skipSuccessfulRequests ?? false,
    skip: (_req: Request) => !config.rateLimit.enabled,
    // 429 in the service's error envelope; the RateLimit-* and Retry-After headers are already set.
    handler: (_req, _res, next) => next(new AppError('RATE_LIMITED', { message })),
  };
  if (!redis.enabled) return rateLimit(options);
  const client = redis.command();
  options.store = new RedisStore({
    prefix: `${redis.keyPrefix}rl:${variant?.name ?? tier}:`,
    sendCommand: (...args: string[]) => client.sendCommand(args),
  });
  // Redis trouble must not take the API down: a store error or a store that does not answer
  // within REDIS_LIMITER_TIMEOUT_MS lets the request through (fail open) and is logged.
  options.passOnStoreError = true;
  return failOpenAfter(rateLimit(options), REDIS_LIMITER_TIMEOUT_MS, tier, logger);
}

const REDIS_LIMITER_TIMEOUT_MS = 2000;

function failOpenAfter(limiter: RequestHandler, ms: number, tier: Tier, logger: Logger): RequestHandler {
  return (req, res, next) => {
    let settled = false;
    const timer = setTimeout(() => {
      settled = true;
      logger.warn({ tier }, 'rate-limit store did not answer in time; request let through');
      next();
    }, ms);
    void limiter(req, res, (err?: unknown) => {
      if (settled) return;
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
export function createUserRateLimiter(tier: Tier, name: string, config: Config, redis: RedisConnections, logger: Logger): RequestHandler {
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


import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import express from 'express';
import path from 'node:path';
import { z } from 'zod';
import { ConfigError } from './config-error.js';
import { loadOrCreateSecret } from './secret-file.js';

/**
 * Configuration, parsed and validated by the entry points (server, CLI, tests) and handed to the
 * container; nothing here reads the environment at import time.
 * A bad value stops the start with a message naming the variable.
 */

const bool = (defaultValue: boolean) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'], {
      error: 'must be true or false',
    })
    .optional()
    .transform((v) => (v === undefined ? defaultValue : ['true', '1', 'yes', 'on'].includes(v)));

const int = (defaultValue: number, min: number, max: number) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v.trim() === '') return defaultValue;
      if (!/^\d+$/.test(v.trim())) {
        ctx.addIssue({ code: 'custom', message: `must be a whole number from ${min} to ${max}` });
        return z.NEVER;
      }
      const n = Number(v);
      if (n < min || n > max) {
        ctx.addIssue({ code: 'custom', message: `must be a whole number from ${min} to ${max}` });
        return z.NEVER;
      }
      return n;
    });

const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));

const url = (defaultValue?: string) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      const value = v === undefined || v.trim() === '' ? defaultValue : v.trim();
      if (value === undefined) return undefined;
      try {
        const parsed = new URL(value);
        if (!['http:', 'https:', 'postgres:', 'postgresql:', 'redis:', 'rediss:'].includes(parsed.protocol)) {
          throw new Error('protocol');
        }
      } catch {
        ctx.addIssue({ code: 'custom', message: 'must be a valid URL' });
        return z.NEVER;
      }
      return value.replace(/\/+$/, '');
    });

/** Comma-separated ICE server URLs (RFC 7064/7065 schemes); unset or empty = none. */
const iceUrls = (schemes: string[]) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      const urls = (v ?? '')
        .split(',')
        .map((u) => u.trim())
        .filter(Boolean);
      const bad = urls.find((u) => !schemes.some((s) => u.startsWith(s)) || /\s/.test(u));
      if (bad !== undefined) {
        ctx.addIssue({ code: 'custom', message: `must be comma-separated ${schemes.join(' or ')} URLs` });
        return z.NEVER;
      }
      return urls;
    });

/** Express's names of address ranges, accepted in a TRUST_PROXY list. */
const PROXY_RANGE_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

/** The most hops TRUST_PROXY may name: more proxies in front of one service than this is a mistake. */
const MAX_PROXY_HOPS = 10;

/**
 * An address, `address/prefix` or a range name of a TRUST_PROXY list. A subnet wider than /8
 * (IPv4) or /16 (IPv6; an IPv4-mapped `::ffff:a.b.c.d/n` as IPv4 with n - 96) would trust nearly
 * every client to choose its address, so it is refused like `true`.
 */
function isProxyAddress(entry: string): boolean {
  if (PROXY_RANGE_NAMES.includes(entry)) return true;
  const [address, prefix, ...rest] = entry.split('/');
  const family = isIP(address ?? '');
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  if (!/^\d{1,3}$/.test(prefix)) return false;
  const bits = Number(prefix);
  if (family === 4) return bits >= 8 && bits <= 32;
  const mapped = /^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(address ?? '');
  return bits <= 128 && (mapped ? bits - 96 >= 8 : bits >= 16);
}

/** Whether Express compiles the list (it throws at start otherwise). */
function expressAccepts(entries: string[]): boolean {
  try {
    express().set('trust proxy', entries);
    return true;
  } catch {
    return false;
  }
}

/**
 * Express "trust proxy": which hops may set X-Forwarded-For, hence the client address of rate
 * limits and the activity log. `true` (trust every hop, so any client picks its own address)
 * is refused: give the number of proxies in front of the service, or their addresses.
 */
const trustProxy = z
  .string()
  .optional()
  .transform((v, ctx): false | number | string[] => {
    const value = v?.trim() ?? '';
    if (value === '' || value === 'false') return false;
    if (/^\d+$/.test(value)) {
      const hops = Number(value);
      if (hops <= MAX_PROXY_HOPS) return hops === 0 ? false : hops;
      ctx.addIssue({ code: 'custom', message: `a hop count must be 0 to ${MAX_PROXY_HOPS}` });
      return z.NEVER;
    }
    if (['true', 'yes', 'on'].includes(value.toLowerCase())) {
      ctx.addIssue({
        code: 'custom',
        message:
          'true would let any client choose its address; give the number of proxies in front (e.g. 1) or their addresses and subnets (e.g. 10.0.0.0/8,loopback)',
      });
      return z.NEVER;
    }
    const entries = value.split(',').map((e) => e.trim());
    if (!entries.every(isProxyAddress) || !expressAccepts(entries)) {
      ctx.addIssue({
        code: 'custom',
        message: `must be a hop count (0-${MAX_PROXY_HOPS}) or comma-separated addresses, subnets no wider than /8 (IPv4) or /16 (IPv6), or loopback, linklocal, uniquelocal`,
      });
      return z.NEVER;
    }
    return entries;
  });

const schema = z.object({
  NODE_ENV: z
    .enum(['development', 'production', 'test'], { error: 'must be development, production or test' })
    .default('development'),
  PORT: int(3000, 0, 65535), // 0: a free port chosen by the system (logged at start)
  HOST: optionalString,
  LISTEN_BACKLOG: int(4096, 1, 65535),
  LISTEN_SOCKETS: int(8, 1, 64),
  DATABASE_URL: url(),
  EMBEDDED_DB_DIR: optionalString,
  EMBEDDED_DB_PORT: int(0, 0, 65535),
  // Reliability (issue 16): the pool, its wait, the start-up retry and the shutdown grace.
  DATABASE_POOL_SIZE: int(10, 1, 1000),
  DATABASE_POOL_TIMEOUT_MS: int(5000, 1, 600_000),
  DATABASE_POOL_QUEUE_SIZE: int(200, 0, 1_000_000),
  DATABASE_POOL_MIN: int(0, 0, 1000),
  DATABASE_POOL_IDLE_MS: int(10_000, 0, 86_400_000),
  WARMUP_MS: int(0, 0, 60_000),
  V8_TURBOFAN_CALLS: int(1000, 0, 1_000_000),
  V8_PRETENURING: bool(false),
  DATABASE_STARTUP_TIMEOUT_SECONDS: int(30, 0, 3600),
  SHUTDOWN_TIMEOUT_MS: int(2500, 0, 600_000),
  JWT_SECRET: optionalString,
  JWT_EXPIRES_IN_SECONDS: int(24 * 60 * 60, 60, 30 * 24 * 60 * 60),
  BCRYPT_ROUNDS: int(10, 4, 15),
  FRONTEND_URL: url('http://localhost:5173'),
  CORS_ORIGINS: optionalString,
  TRUST_PROXY: trustProxy,
  DATA_DIR: optionalString,
  SMTP_HOST: optionalString,
  SMTP_PORT: int(587, 1, 65535),
  SMTP_USER: optionalString,
  SMTP_PASS: optionalString,
  SMTP_SECURE: bool(false),
  MAIL_FROM: optionalString,
  MAIL_RETRY_LIMIT: int(10, 0, 1000),
  MAIL_RETRY_DELAY_SECONDS: int(5, 1, 86_400),
  MAIL_POLL_INTERVAL_SECONDS: int(2, 1, 3600),
  // The hot reads' cache (src/lib/read-cache.ts, docs/event-day.md): most bytes of answers held.
  READ_CACHE_MAX_MB: int(64, 1, 65_536),
  MAIL_QUEUE_NAME: z
    .string()
    .optional()
    .transform((v) => (v === undefined || v.trim() === '' ? 'mail' : v.trim()))
    .pipe(z.string().regex(/^[A-Za-z0-9_-]{1,50}$/, 'must be 1 to 50 letters, digits, _ or -')),
  CSRF_ENABLED: bool(false),
  CSRF_SECRET: optionalString,
  RATE_LIMIT_ENABLED: bool(true),
  RATE_LIMIT_GENERAL_MAX: int(300, 1, 1_000_000),
  RATE_LIMIT_GENERAL_WINDOW_SECONDS: int(60, 1, 86_400),
  RATE_LIMIT_AUTH_MAX: int(20, 1, 1_000_000),
  RATE_LIMIT_AUTH_WINDOW_SECONDS: int(15 * 60, 1, 86_400),
  RATE_LIMIT_EMAIL_MAX: int(5, 1, 1_000_000),
  RATE_LIMIT_EMAIL_WINDOW_SECONDS: int(60 * 60, 1, 86_400),
  // Security hardening: e-mail changes per account in a rolling window (with RATE_LIMIT_ENABLED).
  EMAIL_CHANGE_MAX: int(3, 1, 1000),
  EMAIL_CHANGE_WINDOW_SECONDS: int(24 * 60 * 60, 1, 30 * 24 * 60 * 60),
  LOCKOUT_MAX_ATTEMPTS: int(5, 1, 1000),
  LOCKOUT_MINUTES: int(15, 1, 7 * 24 * 60),
  REQUIRE_EMAIL_VERIFICATION: bool(true),
  REGISTRY_LOOKUP_URL: url('https://points.worldsdc.com/lookup2020/find'),
  REGISTRY_TIMEOUT_MS: int(5000, 100, 60_000),
  REDIS_URL: url(),
  REDIS_KEY_PREFIX: optionalString,
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
      error: 'must be one of fatal, error, warn, info, debug, trace, silent',
    })
    .optional(),
  MATCHING_SCHEDULER_ENABLED: bool(true),
  MATCHING_SCHEDULER_INTERVAL_SECONDS: int(30, 1, 3600),
  STUN_URLS: iceUrls(['stun:', 'stuns:']),
  TURN_URLS: iceUrls(['turn:', 'turns:']),
  TURN_SECRET: optionalString,
  TURN_TTL_SECONDS: int(3600, 60, 24 * 60 * 60),
  // Privacy: the address clients reach the service at (avatar URLs); IP retention of the activity log.
  PUBLIC_URL: url().refine((v) => v === undefined || /^https?:\/\//.test(v), 'must be an http or https URL'),
  ACTIVITY_LOG_IP_RETENTION_DAYS: int(30, 1, 3650),
  // CAPTCHA on registration (moderation): unset secret = off.
  CAPTCHA_SECRET: optionalString,
  CAPTCHA_VERIFY_URL: url('https://challenges.cloudflare.com/turnstile/v0/siteverify'),
  // Operations (issue 17): GET /api/metrics exists only with a token.
  // The source commit of this build (the image build sets it; see the Dockerfile), for wcs_build_info.
  BUILD_COMMIT: optionalString,
  METRICS_TOKEN: optionalString.refine((v) => v === undefined || v.length >= 32, 'must be at least 32 characters'),
});

export type Config = ReturnType<typeof loadConfig>;

/** package.json's version (two levels above src/config and dist/config alike). */
function packageVersion(): string {
  try {
    return (JSON.parse(readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8')) as { version: string })
      .version;
  } catch {
    return 'unknown';
  }
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env) {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  const e = parsed.data;
  const isProduction = e.NODE_ENV === 'production';
  if (e.DATABASE_POOL_MIN > e.DATABASE_POOL_SIZE) {
    throw new ConfigError(
      `Invalid configuration:\n  DATABASE_POOL_MIN: must not exceed DATABASE_POOL_SIZE (${e.DATABASE_POOL_SIZE})`,
    );
  }
  const isTest = e.NODE_ENV === 'test';

  if (isProduction && (!e.JWT_SECRET || e.JWT_SECRET.length < 32)) {
    throw new ConfigError(
      'Invalid configuration:\n  JWT_SECRET: is required in production and must be at least 32 characters',
    );
  }
  if (e.JWT_SECRET !== undefined && e.JWT_SECRET.length < 32 && isProduction) {
    throw new ConfigError('Invalid configuration:\n  JWT_SECRET: must be at least 32 characters');
  }
  // Without SMTP, mails (with live verification and reset tokens) would be written to the log.
  if (isProduction && !e.SMTP_HOST) {
    throw new ConfigError(
      'Invalid configuration:\n  SMTP_HOST: is required in production (without it mails, reset tokens included, would go to the log)',
    );
  }
  if (isProduction && e.CSRF_ENABLED && (!e.CSRF_SECRET || e.CSRF_SECRET.length < 32)) {
    throw new ConfigError(
      'Invalid configuration:\n  CSRF_SECRET: is required with CSRF_ENABLED in production and must be at least 32 characters',
    );
  }

  if (e.TURN_URLS.length > 0 && !e.TURN_SECRET) {
    throw new ConfigError('Invalid configuration:\n  TURN_SECRET: is required when TURN_URLS is set');
  }
  // anyone who learns or guesses the secret can mint TURN credentials for the relay
  if (e.TURN_SECRET !== undefined && e.TURN_SECRET.length < 32) {
    throw new ConfigError('Invalid configuration:\n  TURN_SECRET: must be at least 32 characters');
  }

  const corsOrigins = (e.CORS_ORIGINS ?? e.FRONTEND_URL ?? '')
    .split(',')
    .map((o) => o.trim().replace(/\/+$/, ''))
    .filter(Boolean);

  // Outside production, a missing JWT_SECRET is generated once and kept in the data directory:
  // never a constant anyone could read in the source and sign tokens with.
  const dataDir = e.DATA_DIR ?? '.data';
  const jwtSecretFile = e.JWT_SECRET === undefined ? path.join(dataDir, 'jwt-secret') : undefined;
  const jwtSecret = e.JWT_SECRET ?? loadOrCreateSecret(jwtSecretFile as string);

  return {
    env: e.NODE_ENV,
    isProduction,
    isTest,
    port: e.PORT,
    host: e.HOST,
    // Connections the kernel queues before the service accepts them (capped by net.core.somaxconn).
    // Node's default of 511 overflowed when 3 000 phones reconnected at once after a restart: the
    // dropped SYNs were retried by the phones' kernels after 1, 3, 7 and 15 s (docs/event-day.md).
    listenBacklog: e.LISTEN_BACKLOG,
    listenSockets: e.LISTEN_SOCKETS,
    databaseUrl: e.DATABASE_URL,
    // The embedded PostgreSQL server used when DATABASE_URL is unset; port 0 = a free port.
    embeddedDb: { dir: e.EMBEDDED_DB_DIR ?? '.data/postgres', port: e.EMBEDDED_DB_PORT || undefined },
    /**
     * At most `size` connections; a query waits up to `timeoutMs` for one, behind at most
     * `queueSize` others; past either the request answers 503 with Retry-After
     * (src/lib/database-pool.ts, src/lib/prisma-errors.ts). `min` connections are opened before
     * the service listens and kept; the others close after `idleMs` unused (0: never).
     */
    databasePool: {
      size: e.DATABASE_POOL_SIZE,
      timeoutMs: e.DATABASE_POOL_TIMEOUT_MS,
      queueSize: e.DATABASE_POOL_QUEUE_SIZE,
      min: e.DATABASE_POOL_MIN,
      idleMs: e.DATABASE_POOL_IDLE_MS,
    },
    /**
     * The hot reads warmed up for `ms` before the service listens (src/lib/warm-up.ts; 0: no
     * warm-up), as `callers` participants of the busiest current event, `concurrency` at once.
     */
    warmUp: { ms: e.WARMUP_MS, callers: 200, concurrency: 32 },
    /**
     * After how many calls V8 optimises a function with TurboFan (src/lib/v8-tiering.ts; 0: V8's
     * own count). Set by src/server.ts at the start, on Node 22 and later.
     */
    v8TurbofanCalls: e.V8_TURBOFAN_CALLS,
    /**
     * Whether V8 may allocate the objects of a literal straight into the old generation once most
     * of them survived (src/lib/v8-tiering.ts; off by default). Set by src/server.ts at the start.
     */
    v8Pretenuring: e.V8_PRETENURING,
    /** How long the start waits for an unreachable database, retrying with backoff (src/lifecycle.ts). */
    databaseStartupTimeoutMs: e.DATABASE_STARTUP_TIMEOUT_SECONDS * 1000,
    /** On SIGTERM, how long in-flight requests may finish before their connections are closed (src/lifecycle.ts). */
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    /** Where generated secrets are kept (DATA_DIR, default .data). */
    dataDir,
    jwt: {
      secret: jwtSecret,
      /** set when JWT_SECRET is unset: the file holding the generated secret */
      secretFile: jwtSecretFile,
      expiresInSeconds: e.JWT_EXPIRES_IN_SECONDS,
    },
    bcryptRounds: e.BCRYPT_ROUNDS,
    frontendUrl: e.FRONTEND_URL as string,
    corsOrigins,
    trustProxy: e.TRUST_PROXY,
    smtp: e.SMTP_HOST
      ? {
          host: e.SMTP_HOST,
          port: e.SMTP_PORT,
          user: e.SMTP_USER,
          pass: e.SMTP_PASS,
          secure: e.SMTP_SECURE,
        }
      : undefined,
    mailFrom: e.MAIL_FROM ?? 'WCS Partner <no-reply@localhost>',
    /** The durable mail queue (src/lib/mail-queue.ts): retries with doubling delays, then gives up. */
    mailQueue: {
      name: e.MAIL_QUEUE_NAME,
      retryLimit: e.MAIL_RETRY_LIMIT,
      retryDelaySeconds: e.MAIL_RETRY_DELAY_SECONDS,
      pollingIntervalSeconds: e.MAIL_POLL_INTERVAL_SECONDS,
    },
    /** The hot reads' cache: at most `maxBytes` of answers, least recently used first (src/lib/read-cache.ts). */
    readCache: { maxBytes: e.READ_CACHE_MAX_MB * 1024 * 1024 },
    csrf: {
      enabled: e.CSRF_ENABLED,
      secret: e.CSRF_SECRET ?? jwtSecret,
    },
    rateLimit: {
      enabled: e.RATE_LIMIT_ENABLED,
      general: { max: e.RATE_LIMIT_GENERAL_MAX, windowMs: e.RATE_LIMIT_GENERAL_WINDOW_SECONDS * 1000 },
      auth: { max: e.RATE_LIMIT_AUTH_MAX, windowMs: e.RATE_LIMIT_AUTH_WINDOW_SECONDS * 1000 },
      email: { max: e.RATE_LIMIT_EMAIL_MAX, windowMs: e.RATE_LIMIT_EMAIL_WINDOW_SECONDS * 1000 },
    },
    lockout: { maxAttempts: e.LOCKOUT_MAX_ATTEMPTS, minutes: e.LOCKOUT_MINUTES },
    /** Per account at most `max` e-mail changes in a rolling `windowSeconds`; only with rate limits on. */
    emailChange: { max: e.EMAIL_CHANGE_MAX, windowSeconds: e.EMAIL_CHANGE_WINDOW_SECONDS },
    requireEmailVerification: e.REQUIRE_EMAIL_VERIFICATION,
    /** Check-in only from a day before the event to a day after it (off outside production, for testing at any date). */
    checkin: { enforceWindow: isProduction },
    registry: { lookupUrl: e.REGISTRY_LOOKUP_URL as string, timeoutMs: e.REGISTRY_TIMEOUT_MS },
    redisUrl: e.REDIS_URL,
    /** put before every key and channel the service uses in Redis (deployments or test runs sharing one Redis) */
    redisKeyPrefix: e.REDIS_KEY_PREFIX ?? '',
    logLevel: e.LOG_LEVEL ?? (isTest ? 'silent' : 'info'),
    matchingScheduler: {
      enabled: e.MATCHING_SCHEDULER_ENABLED,
      intervalMs: e.MATCHING_SCHEDULER_INTERVAL_SECONDS * 1000,
    },
    /** ICE servers handed to WebRTC clients (GET /webrtc/ice-servers); TURN needs TURN_SECRET. */
    webrtc: {
      stunUrls: e.STUN_URLS,
      turnUrls: e.TURN_URLS,
      turnSecret: e.TURN_SECRET,
      turnTtlSeconds: e.TURN_TTL_SECONDS,
    },
    /**
     * Abuse limits of the real-time channel (per instance): join_event_room per socket (a token
     * bucket: `burst` joins, refilled at `perSecond`) and sockets per user (refused at the handshake).
     * While the event loop runs more than `shedLagMs` late, handshakes are refused before any work
     * (SERVICE_UNAVAILABLE, docs/event-day.md): at that lag a handshake (a few turns of the loop)
     * would hardly finish within socket.io-client's 20 s connect timeout. A lower value (1 s) made
     * the connection of 1 000 clients slower on a loaded machine, refusing handshakes that would
     * have succeeded.
     */
    realtime: {
      roomJoins: { perSecond: 1, burst: 10 },
      maxSocketsPerUser: 20,
      shedLagMs: 5000,
      /**
       * `presence_count` broadcasts to a room (src/modules/chat/chat.presence.ts): at most once per
       * `intervalMs`, or per `msPerSocket` × the room's sockets on this instance when that is longer.
       */
      presenceCount: { intervalMs: 1000, msPerSocket: 1 },
    },
    /** Match requests per requester (a token bucket: `burst` requests, refilled at `perMinute`). */
    matchRequests: { perMinute: 10, burst: 10 },
    // Operations (issue 17): bearer token of GET /api/metrics; unset → the route does not exist.
    metrics: { token: e.METRICS_TOKEN },
    /**
     * The address clients reach this service at (PUBLIC_URL, trailing slash dropped; default
     * http://localhost:<PORT>): avatar URLs start with it. Never taken from request headers.
     */
    publicUrl: e.PUBLIC_URL ?? `http://localhost:${e.PORT}`,
    /** Privacy (docs/privacy.md): activity-log entries older than this lose their IP address. */
    privacy: { activityLogIpRetentionDays: e.ACTIVITY_LOG_IP_RETENTION_DAYS },
    /** What this build is (wcs_build_info): package.json's version and the source commit. */
    build: { version: packageVersion(), commit: e.BUILD_COMMIT ?? 'unknown' },
    /**
     * CAPTCHA on registration (docs/moderation.md): off without a secret; a Turnstile-compatible
     * siteverify endpoint, asked with a 5 s deadline.
     */
    captcha: { secret: e.CAPTCHA_SECRET, verifyUrl: e.CAPTCHA_VERIFY_URL as string, timeoutMs: 5000 },
  };
}

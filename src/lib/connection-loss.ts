import {
  AbortError,
  ClientClosedError,
  ClientOfflineError,
  ConnectionTimeoutError,
  DisconnectsClientError,
  ReconnectStrategyError,
  SocketClosedUnexpectedlyError,
  SocketTimeoutError,
  TimeoutError,
} from 'redis';
import type { Logger } from './logger.js';
import { isDatabaseUnavailable } from './prisma-errors.js';

/**
 * Connection loss (issue 23, items 1 and 2; TOOLCHAIN.md "Connection loss"): pg-boss 10 calls
 * `complete()`/`fail()` without awaiting them and @socket.io/redis-adapter 8 calls `publish()`
 * without awaiting it, so when PostgreSQL or Redis drops its connections the rejection surfaces
 * as an *unhandled* rejection, out of reach of any try/catch. Such a rejection is an outage
 * symptom, not a bug: it is logged as a warning (at most once per kind and interval) and the
 * process keeps running; the pools and clients reconnect by themselves. Any other unhandled
 * rejection is still a bug and stops the process (src/server.ts).
 */

type AnyRecord = Record<string, unknown>;

/** node-redis 6's errors of a connection that is gone or a command that could not be answered. */
const REDIS_ERRORS = [
  ClientClosedError,
  ClientOfflineError,
  SocketClosedUnexpectedlyError,
  ConnectionTimeoutError,
  SocketTimeoutError,
  ReconnectStrategyError,
  DisconnectsClientError,
  TimeoutError,
  AbortError,
];

/** Messages of a lost or unreachable Redis (the Socket.IO Redis adapter's request timeouts, our deadlines). */
const REDIS_MESSAGE = /Redis did not answer|timeout reached while waiting for|timeout reached: only \d+ responses/i;

const NET_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
]);

/** True when `err` says that Redis cannot be reached (down, restarting, frozen past a deadline). */
export function isRedisUnavailable(err: unknown): boolean {
  let current: unknown = err;
  for (let depth = 0; current && depth < 6; depth++) {
    const c = current as AnyRecord;
    if (REDIS_ERRORS.some((type) => c instanceof type)) return true;
    if (typeof c.code === 'string' && NET_CODES.has(c.code)) return true;
    if (typeof c.message === 'string' && REDIS_MESSAGE.test(c.message)) return true;
    current = c.cause;
  }
  return false;
}

export type ConnectionLossKind = 'database' | 'redis';

/** Which backing service a transient connection error belongs to, or undefined for anything else. */
export function connectionLossKind(err: unknown): ConnectionLossKind | undefined {
  if (isDatabaseUnavailable(err)) return 'database';
  if (isRedisUnavailable(err)) return 'redis';
  return undefined;
}

/** The first line of an error's message (no stack, no client object). */
export function reasonOf(err: unknown): string {
  const e = (err ?? {}) as AnyRecord;
  const message =
    typeof e.message === 'string' && e.message ? e.message : typeof e.code === 'string' ? e.code : String(err);
  return message.split('\n')[0].slice(0, 300);
}

/**
 * Logs a warning at most once per `intervalMs` for each key; the next one carries how many were
 * left out meanwhile. An outage that fails a thousand calls writes a few lines, not a thousand.
 */
export class WarnOnce {
  private readonly last = new Map<string, { at: number; suppressed: number }>();

  constructor(
    private readonly logger: Logger,
    private readonly intervalMs = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  warn(key: string, fields: AnyRecord, message: string): void {
    const now = this.now();
    const seen = this.last.get(key);
    if (seen && now - seen.at < this.intervalMs) {
      seen.suppressed++;
      return;
    }
    this.last.set(key, { at: now, suppressed: 0 });
    this.logger.warn(seen?.suppressed ? { ...fields, suppressed: seen.suppressed } : fields, message);
  }
}

/**
 * The process-wide `unhandledRejection` policy of src/server.ts: a transient connection error of
 * the database or Redis is logged as a warning (throttled) and the process keeps running; any
 * other rejection is logged as an error and `fatal` is called (the server shuts down).
 */
export function unhandledRejectionPolicy(
  logger: Logger,
  fatal: (err: unknown) => void,
  intervalMs = 10_000,
): (err: unknown) => void {
  const warnings = new WarnOnce(logger, intervalMs);
  return (err: unknown) => {
    const kind = connectionLossKind(err);
    if (kind) {
      warnings.warn(
        kind,
        { backing: kind, reason: reasonOf(err) },
        `${kind === 'database' ? 'database' : 'Redis'} connection lost in a background task; it reconnects by itself (not shutting down)`,
      );
      return;
    }
    logger.error({ err }, 'unhandled promise rejection: shutting down');
    fatal(err);
  };
}

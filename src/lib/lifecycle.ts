import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Logger } from './logger.js';
import { isDatabaseUnavailable } from './prisma-errors.js';
import { DatabaseUnreachableError, StartupAborted } from './startup-errors.js';

/**
 * The process lifecycle of src/server.ts (issue 16): waiting for the database at start-up,
 * stopping when a signal arrives during start-up, and draining HTTP on shutdown.
 */

export { DatabaseUnreachableError, StartupAborted } from './startup-errors.js';

/** `database "wcs" at db.internal:5432 (postgresql://app:****@db.internal:5432/wcs)`: never the password. */
export function describeDatabase(url: string | undefined): string {
  if (!url) return 'the embedded database';
  try {
    const u = new URL(url);
    if (u.password) u.password = '****';
    const name = decodeURIComponent(u.pathname.replace(/^\//, '')) || '(default)';
    return `database "${name}" at ${u.hostname}:${u.port || '5432'} (${u.toString()})`;
  } catch {
    return 'the database (unparsable DATABASE_URL)';
  }
}

/** The short reason of a connection failure, without a stack (e.g. "connect ECONNREFUSED 127.0.0.1:5432"). */
function reasonOf(err: unknown): string {
  const e = err as { message?: unknown; code?: unknown; errors?: unknown };
  const inner = Array.isArray(e.errors) && e.errors.length ? (e.errors[0] as { message?: unknown }) : undefined;
  const message =
    typeof e.message === 'string' && e.message ? e.message : typeof inner?.message === 'string' ? inner.message : '';
  return (message || (typeof e.code === 'string' ? e.code : 'unknown error')).split('\n')[0];
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

export interface PrepareOptions {
  /** DATABASE_URL, for the messages (password masked) */
  url: string | undefined;
  /** DATABASE_STARTUP_TIMEOUT_SECONDS in ms: how long to keep trying */
  timeoutMs: number;
  logger: Logger;
  /** aborted by SIGTERM/SIGINT during start-up */
  signal: AbortSignal;
}

/**
 * Runs `prepare` (connect, migrate, seed) and, while the database cannot be reached, tries again
 * with backoff (0.25 s doubling to 5 s) until `timeoutMs` has passed, logging each attempt. Then
 * it throws DatabaseUnreachableError with one line naming the database and its address. Other
 * errors (a failed migration, a wrong password) are not retried. Retrying is safe because each
 * migration commits together with its record (src/lib/migrate.ts).
 */
export async function prepareDatabase<T>(prepare: () => Promise<T>, options: PrepareOptions): Promise<T> {
  const { url, timeoutMs, logger, signal } = options;
  const started = Date.now();
  let delay = 250;
  for (let attempt = 1; ; attempt++) {
    try {
      return await prepare();
    } catch (err) {
      if (!isDatabaseUnavailable(err)) throw err;
      if (signal.aborted) throw new StartupAborted();
      const remaining = started + timeoutMs - Date.now();
      if (remaining <= 0) {
        const seconds = Math.round((Date.now() - started) / 1000);
        throw new DatabaseUnreachableError(
          `${describeDatabase(url)} is not reachable: ${reasonOf(err)} (gave up after ${attempt} attempt(s) in ${seconds} s; DATABASE_STARTUP_TIMEOUT_SECONDS)`,
        );
      }
      const wait = Math.min(delay, remaining);
      logger.warn(
        { attempt, database: describeDatabase(url), reason: reasonOf(err), retryInMs: wait },
        'database not reachable; retrying',
      );
      await pause(wait, signal);
      if (signal.aborted) throw new StartupAborted();
      delay = Math.min(delay * 2, 5000);
    }
  }
}

/**
 * A start-up step that a signal may interrupt: after the abort, the step gets `graceMs` to
 * finish (a migration commits or the connection closes and PostgreSQL rolls it back), then
 * StartupAborted is thrown either way so that the caller stops instead of listening.
 */
export async function duringStartup<T>(signal: AbortSignal, step: Promise<T>, graceMs: number): Promise<T> {
  if (signal.aborted) throw new StartupAborted();
  const settled = step.then(
    () => undefined,
    () => undefined,
  );
  const aborted = new Promise<'aborted'>((resolve) =>
    signal.addEventListener('abort', () => resolve('aborted'), { once: true }),
  );
  if ((await Promise.race([settled, aborted])) === 'aborted') {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([settled, new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))]);
    clearTimeout(timer);
    throw new StartupAborted();
  }
  return step;
}

/** Where HttpDrain links an in-flight response to its neighbours (see InFlight). */
const PREVIOUS = Symbol('inFlightPrevious');
const NEXT = Symbol('inFlightNext');
type Linked = ServerResponse & { [PREVIOUS]?: Linked | Ring; [NEXT]?: Linked | Ring };
type Ring = { [PREVIOUS]: Linked | Ring; [NEXT]: Linked | Ring };

/**
 * The responses in flight, as a ring linked through the responses themselves; a response leaves
 * it (both links cleared) when it closes. Not a Set: with a Set that every response entered and
 * left, the service's cached reads outlived two young-generation collections and were copied to
 * the old generation, 8 MB every 70 ms at 18 000 requests a second (8 ms pauses; the ring: 0.1 MB
 * and 0.8 ms, and 16-22 % more answers a second). A bare HTTP server with the same Set did not
 * show it, so the service's heap takes part; measured with bench:http and --trace-gc
 * (docs/benchmarks.md, 2026-12-03).
 */
class InFlight {
  private readonly ring: Ring;
  size = 0;

  constructor() {
    const ring = {} as Ring;
    ring[PREVIOUS] = ring;
    ring[NEXT] = ring;
    this.ring = ring;
  }

  add(res: Linked): void {
    const last = this.ring[PREVIOUS];
    res[PREVIOUS] = last;
    res[NEXT] = this.ring;
    last[NEXT] = res;
    this.ring[PREVIOUS] = res;
    this.size++;
  }

  delete(res: Linked): void {
    const previous = res[PREVIOUS];
    const next = res[NEXT];
    if (!previous || !next) return;
    previous[NEXT] = next;
    next[PREVIOUS] = previous;
    res[PREVIOUS] = undefined;
    res[NEXT] = undefined;
    this.size--;
  }

  *[Symbol.iterator](): IterableIterator<ServerResponse> {
    for (let at = this.ring[NEXT]; at !== this.ring; at = at[NEXT]!) yield at as Linked;
  }
}

/**
 * Tracks the requests of an HTTP server so that shutdown can drain it: once `begin()` ran, every
 * response still to be sent (in flight or arriving on a kept-alive connection) carries
 * `Connection: close`, so a busy keep-alive connection ends after its current request instead
 * of serving more; idle connections are closed at once; `finished()` waits for the handlers.
 * Create it after Socket.IO is attached (it listens first, so it sees every request).
 */
export class HttpDrain {
  private readonly inFlight = new InFlight();
  private draining = false;
  private readonly waiters: Array<() => void> = [];

  constructor(private readonly server: Server) {
    server.prependListener('request', (_req: IncomingMessage, res: ServerResponse) => {
      this.inFlight.add(res);
      if (this.draining) closeAfter(res);
      res.once('close', () => {
        this.inFlight.delete(res);
        if (this.inFlight.size === 0) for (const wake of this.waiters.splice(0)) wake();
      });
    });
  }

  get active(): number {
    return this.inFlight.size;
  }

  /** Stops accepting connections, marks in-flight responses `Connection: close`, closes idle connections. */
  begin(): void {
    this.draining = true;
    for (const res of this.inFlight) closeAfter(res);
    this.server.close(() => undefined);
    this.server.closeIdleConnections();
  }

  /**
   * Resolves true when no request is in flight, or false after `timeoutMs`; then closes every
   * connection still open (idle ones, or those whose handlers overran the time).
   */
  async finished(timeoutMs: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const done =
      this.inFlight.size === 0 ||
      (await Promise.race([
        new Promise<true>((resolve) => this.waiters.push(() => resolve(true))),
        new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs))),
      ]));
    clearTimeout(timer);
    this.server.closeAllConnections();
    return done;
  }
}

function closeAfter(res: ServerResponse): void {
  res.shouldKeepAlive = false;
  if (!res.headersSent) res.setHeader('Connection', 'close');
}

/** The state of this service instance that its readiness probe reports (src/server.ts sets it). */
export interface InstanceState {
  /** set when the shutdown begins: /api/health/ready answers 503 from then on */
  shuttingDown: boolean;
}

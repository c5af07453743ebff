import { createHash, timingSafeEqual } from 'node:crypto';
import { Router, type Request, type RequestHandler } from 'express';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { AppError } from './errors.js';
import { isWarmUpRequest } from './warm-up.js';

/**
 * Prometheus metrics of one service instance (served at GET /api/metrics, see docs/operations.md,
 * "Metrics"). Each Metrics owns its Registry, never prom-client's global one, so a
 * test can build several. Label values are always from a closed set (a route template, an
 * event name the service registered, a kind below): never a raw URL, id or user input.
 */

/** Counters of the PostgreSQL connection pool, as pg.Pool reports them. */
export interface DatabasePoolStats {
  total: number;
  idle: number;
  waiting: number;
  /** statements sent since the pool was built */
  queries: number;
}

export interface MetricsOptions {
  /** Reads the pool at scrape time; without it the pool gauges stay empty. */
  databasePool?: () => DatabasePoolStats | undefined;
  /** Process metrics of prom-client (CPU, memory, GC, event-loop lag, handles). Default true. */
  defaultMetrics?: boolean;
  /** The labels of `wcs_build_info`; without them the series is not exported. */
  build?: BuildInfo;
  /** Reads the mail queue at scrape time; undefined (or a failed read) leaves the mail gauges empty. */
  mailQueue?: () => Promise<MailQueueStats | undefined>;
  /** Reads the hot reads' cache (src/lib/read-cache.ts) at scrape time; without it its series stay empty. */
  readCache?: () => ReadCacheStats | undefined;
}

/** What the read cache's series show (ReadCache.stats()). */
export interface ReadCacheStats {
  healthy: boolean;
  entries: number;
  weight: number;
  hits: number;
  misses: number;
  fencesBack: number;
  fenceSeconds: number;
}

/**
 * Every application series starts with this prefix (`wcs_http_request_duration_seconds`, ...);
 * prom-client's process defaults keep their standard names (`process_*`, `nodejs_*`), which the
 * usual dashboards expect.
 */
export const METRIC_PREFIX = 'wcs_';

/** The labels of `wcs_build_info` (value 1). */
export interface BuildInfo {
  version: string;
  /** the source commit (BUILD_COMMIT, set by the image build), `unknown` when not given */
  commit: string;
  /** the Node.js version running the service */
  node: string;
}

/** This build's labels: the package version, BUILD_COMMIT (config) and the running Node.js. */
export function buildInfo(config: { build: { version: string; commit: string } }): BuildInfo {
  return { version: config.build.version, commit: config.build.commit, node: process.version };
}

/** The durable mail queue's backlog, read at scrape time. */
export interface MailQueueStats {
  /** mails waiting to be sent (new, or failed once and waiting for their retry) */
  queued: number;
  /** mails given up after their last retry (kept by pg-boss until its retention ends) */
  failed: number;
}

export type ChatMessageKind = 'event' | 'private';
export type MailKind = 'verification' | 'password_reset' | 'email_changed';
export type MatchingRunOutcome = 'completed' | 'failed';

export interface MatchingRunObservation {
  outcome: MatchingRunOutcome;
  durationSeconds: number;
  heatsCovered: number;
  heatsUnfilled: number;
}

const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const MATCHING_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

export class Metrics {
  readonly registry = new Registry();

  private readonly httpDuration: Histogram<'method' | 'route' | 'status'>;
  private readonly socketsConnected: Gauge;
  private readonly socketJoins: Counter<'event'>;
  private readonly socketMessages: Counter<'event'>;
  private readonly chatMessages: Counter<'kind'>;
  private readonly matchingDuration: Histogram<'outcome'>;
  private readonly matchingHeatsCovered: Counter;
  private readonly matchingHeatsUnfilled: Counter;
  private readonly mailsSent: Counter<'kind'>;
  private readonly mailsFailed: Counter<'kind'>;
  private readonly loginFailures: Counter;
  private readonly lockouts: Counter;

  constructor(options: MetricsOptions = {}) {
    const registers = [this.registry];
    if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: this.registry });

    this.httpDuration = new Histogram({
      name: `${METRIC_PREFIX}http_request_duration_seconds`,
      help: 'HTTP request duration by method, route template and status',
      labelNames: ['method', 'route', 'status'],
      buckets: HTTP_BUCKETS,
      registers,
    });
    const counter = <L extends string>(name: string, help: string, labelNames: L[] = []) =>
      new Counter<L>({ name, help, labelNames, registers });
    this.socketsConnected = new Gauge({
      name: `${METRIC_PREFIX}socketio_connected_sockets`,
      help: 'Socket.IO sockets connected to this instance',
      registers,
    });
    this.socketJoins = counter(`${METRIC_PREFIX}socketio_joins_total`, 'Socket.IO room joins by event name', ['event']);
    this.socketMessages = counter(
      `${METRIC_PREFIX}socketio_messages_total`,
      'Socket.IO messages received by event name',
      ['event'],
    );
    this.chatMessages = counter(
      `${METRIC_PREFIX}chat_messages_stored_total`,
      'Chat messages stored, event or private chat',
      ['kind'],
    );
    this.matchingDuration = new Histogram({
      name: `${METRIC_PREFIX}matching_run_duration_seconds`,
      help: 'Recording-partner matching run duration by outcome (its count is the number of runs)',
      labelNames: ['outcome'],
      buckets: MATCHING_BUCKETS,
      registers,
    });
    this.matchingHeatsCovered = counter(
      `${METRIC_PREFIX}matching_heats_covered_total`,
      'Heats given a recording partner by matching runs',
    );
    this.matchingHeatsUnfilled = counter(
      `${METRIC_PREFIX}matching_heats_unfilled_total`,
      'Heats left without a recording partner by matching runs',
    );
    this.mailsSent = counter(`${METRIC_PREFIX}mails_sent_total`, 'Mails handed to the SMTP server', ['kind']);
    this.mailsFailed = counter(`${METRIC_PREFIX}mails_failed_total`, 'Mails the SMTP server did not accept', ['kind']);
    this.loginFailures = counter(
      `${METRIC_PREFIX}login_failures_total`,
      'Failed logins (wrong e-mail or password, or locked account)',
    );
    this.lockouts = counter(`${METRIC_PREFIX}account_lockouts_total`, 'Accounts locked after too many failed logins');

    if (options.build) {
      new Gauge({
        name: `${METRIC_PREFIX}build_info`,
        help: 'Build of this instance: version, commit and Node.js version as labels; always 1',
        labelNames: ['version', 'commit', 'node'],
        registers,
      }).set({ ...options.build }, 1);
    }
    const readMailQueue = options.mailQueue;
    new Gauge({
      name: `${METRIC_PREFIX}mail_queue_mails`,
      help: 'Mails in the durable queue by state: queued (new or waiting for a retry), failed (given up after the last retry)',
      labelNames: ['state'],
      registers,
      async collect() {
        const stats = await readMailQueue?.().catch(() => undefined);
        if (!stats) return;
        this.set({ state: 'queued' }, stats.queued);
        this.set({ state: 'failed' }, stats.failed);
      },
    });

    const readPool = options.databasePool;
    new Gauge({
      name: `${METRIC_PREFIX}db_pool_connections`,
      help: 'PostgreSQL pool connections by state (in_use, idle)',
      labelNames: ['state'],
      registers,
      collect() {
        const stats = readPool?.();
        if (!stats) return;
        this.set({ state: 'in_use' }, stats.total - stats.idle);
        this.set({ state: 'idle' }, stats.idle);
      },
    });
    new Gauge({
      name: `${METRIC_PREFIX}db_pool_waiting_requests`,
      help: 'Queries waiting for a free PostgreSQL pool connection',
      registers,
      collect() {
        const stats = readPool?.();
        if (stats) this.set(stats.waiting);
      },
    });
    // The hot reads' cache: a low hit ratio under polling means answers are read again from the
    // database (entries dropped by writes, or evicted when the bytes are full).
    const readCache = options.readCache;
    const lookupsSeen = { hit: 0, miss: 0 };
    new Counter({
      name: `${METRIC_PREFIX}read_cache_lookups_total`,
      help: 'Hot reads looked up in the read cache: hit (answered from it) or miss (read from the database)',
      labelNames: ['result'],
      registers,
      collect() {
        const stats = readCache?.();
        if (!stats) return;
        for (const [result, now] of [
          ['hit', stats.hits],
          ['miss', stats.misses],
        ] as const) {
          if (now > lookupsSeen[result]) this.inc({ result }, now - lookupsSeen[result]);
          lookupsSeen[result] = now;
        }
      },
    });
    new Gauge({
      name: `${METRIC_PREFIX}read_cache_bytes`,
      help: 'Bytes of answers held by the read cache (bounded; least recently used go first)',
      registers,
      collect() {
        const stats = readCache?.();
        if (stats) this.set(stats.weight);
      },
    });
    new Gauge({
      name: `${METRIC_PREFIX}read_cache_entries`,
      help: 'Answers held by the read cache',
      registers,
      collect() {
        const stats = readCache?.();
        if (stats) this.set(stats.entries);
      },
    });
    new Gauge({
      name: `${METRIC_PREFIX}read_cache_up`,
      help: 'Whether the read cache is in use (1) or every read goes to the database because its LISTEN connection is down (0)',
      registers,
      collect() {
        const stats = readCache?.();
        if (stats) this.set(stats.healthy ? 1 : 0);
      },
    });
    // Every cached read waits for a fence (one round trip on the LISTEN connection), or two when
    // it arrives while one is out: their mean is _seconds_total / _total.
    totalCounter(
      `${METRIC_PREFIX}read_cache_fences_total`,
      'Fences of the read cache that came back (its own notice seen, every change committed before it too)',
      registers,
      () => readCache?.()?.fencesBack,
    );
    totalCounter(
      `${METRIC_PREFIX}read_cache_fence_seconds_total`,
      "Round trips of the read cache's fences that came back, in all (seconds)",
      registers,
      () => readCache?.()?.fenceSeconds,
    );
    totalCounter(
      `${METRIC_PREFIX}db_queries_total`,
      'SQL statements sent to PostgreSQL through the pool (BEGIN and COMMIT included)',
      registers,
      () => readPool?.()?.queries,
    );
  }

  /** One finished HTTP request; `route` is a template like `/api/events/:slug`, or `unmatched`. */
  httpRequestFinished(method: string, route: string, status: number, durationSeconds: number): void {
    this.httpDuration.observe({ method, route, status: String(status) }, durationSeconds);
  }

  socketConnected(): void {
    this.socketsConnected.inc();
  }

  socketDisconnected(): void {
    this.socketsConnected.dec();
  }

  /** A socket joined a room through `eventName` (e.g. `join_event_chat`); only registered event names. */
  socketJoined(eventName: string): void {
    this.socketJoins.inc({ event: eventName });
  }

  /** A socket sent `eventName`; only registered event names, never a client-chosen string. */
  socketMessageReceived(eventName: string): void {
    this.socketMessages.inc({ event: eventName });
  }

  chatMessageStored(kind: ChatMessageKind): void {
    this.chatMessages.inc({ kind });
  }

  matchingRunFinished(run: MatchingRunObservation): void {
    this.matchingDuration.observe({ outcome: run.outcome }, run.durationSeconds);
    this.matchingHeatsCovered.inc(run.heatsCovered);
    this.matchingHeatsUnfilled.inc(run.heatsUnfilled);
  }

  mailSent(kind: MailKind): void {
    this.mailsSent.inc({ kind });
  }

  mailFailed(kind: MailKind): void {
    this.mailsFailed.inc({ kind });
  }

  loginFailed(): void {
    this.loginFailures.inc();
  }

  accountLockedOut(): void {
    this.lockouts.inc();
  }

  /** The Prometheus text exposition of every series. */
  async scrape(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}

/**
 * The route template of a finished request: the mount path plus the matched route's path
 * (`/api` + `/events/:slug`), or `unmatched` when no route matched (404s, requests refused
 * before routing). Never the URL itself, whose ids and slugs would make one series per value.
 */
export function routeTemplate(req: Request, mountPath: string): string {
  // an answer of the hot lane (src/middleware/cached-read.ts) names the route that first gave it
  const path: unknown = req.route?.path ?? req.res?.locals.laneRoute;
  if (typeof path !== 'string') return 'unmatched';
  // a router mounted outside the API (the admin console) names its own mount path
  const own: unknown = req.res?.locals.routeMountPath;
  return `${typeof own === 'string' ? own : mountPath}${path}`;
}

/**
 * Times every request into `http_request_duration_seconds`. Install it first. `mountPath` is
 * where the feature routers are mounted (they all hold their full paths under it).
 */
export function httpMetricsMiddleware(metrics: Metrics, mountPath: string): RequestHandler {
  return (req, res, next) => {
    // the start-up's warm-up (src/lib/warm-up.ts) is not traffic
    if (isWarmUpRequest(req)) return next();
    const start = process.hrtime.bigint();
    res.once('finish', () => {
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      metrics.httpRequestFinished(req.method, routeTemplate(req, mountPath), res.statusCode, seconds);
    });
    next();
  };
}

const metricsTokenRequired = () =>
  new AppError('METRICS_TOKEN_REQUIRED', { headers: { 'WWW-Authenticate': 'Bearer realm="metrics"' } });

function sameSecret(given: string, expected: string): boolean {
  // Equal-length digests: the comparison time says nothing about the token.
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/**
 * `GET /metrics` in the Prometheus text format. Without a token the route does not exist
 * (404 like any unknown path); with one, a request without `Authorization: Bearer <token>`
 * answers 401.
 */
export function metricsRouter(metrics: Metrics, token: string | undefined, failureLimit: RequestHandler): Router {
  const router = Router();
  if (token === undefined) return router;
  // failed scrapes (401) per IP are limited like logins; successful ones never count
  router.get('/metrics', failureLimit, async (req, res) => {
    const header = req.get('authorization') ?? '';
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    if (!match || !sameSecret(match[1], token)) throw metricsTokenRequired();
    const { contentType, body } = await metrics.scrape();
    res.type(contentType).send(body);
  });
  return router;
}

/**
 * A counter of a total kept elsewhere and read when scraped (`total`; undefined: not known now):
 * it grows by what the total grew since the last scrape.
 */
function totalCounter(name: string, help: string, registers: Registry[], total: () => number | undefined): void {
  let seen = 0;
  new Counter({
    name,
    help,
    registers,
    collect() {
      const now = total();
      if (now === undefined || now <= seen) return;
      this.inc(now - seen);
      seen = now;
    },
  });
}

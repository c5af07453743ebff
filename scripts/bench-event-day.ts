/**
 * `npm run bench:event-day`: one event day on one machine (a script, not a test).
 *
 * For each size (BENCH_EVENT_DAY_STEPS, default 300,1000,3000 dancers) on a fresh PostgreSQL
 * database (admin URL: TEST_DATABASE_ADMIN_URL, default postgresql://postgres@127.0.0.1:5432/postgres):
 * the service starts in production mode as its own process (`node dist/server.js`, built at the start,
 * its log to a file), the weekend of bench:http is seeded around a big event of that many
 * dancers (cities, heats, participations = check-ins, chat history, matches;
 * scripts/bench-http/seed.ts), and matching runs once through the API. Then, every dancer with
 * a socket (scripts/bench-event-day/clients.cjs, a worker thread):
 *   connect   every socket connected and joined to the event room at once; time, first-try
 *             refusals, service RSS per socket above the idle process (read after the chat,
 *             once the joins' write buffers drained, and after a full garbage collection
 *             through the service's inspector, `--inspect=127.0.0.1:0`);
 *   chat      5 messages/s to the room from rotating dancers: delivery p50/p99 over every
 *             (message, socket), lost deliveries;
 *   polling   the fixed-rate mix of bench:http, one request per dancer every 5 s, with the
 *             sockets connected: p50/p99 per endpoint, errors;
 *   matching  5 % of the dancers replace their heats (POST /api/events/:slug/heats), then a
 *             re-run (POST /api/admin/events/:slug/matching-runs), timed end to end;
 *   storm     SIGTERM, the service starts again on the same port; from its first healthy answer
 *             until every client is back in the room (reconnecting with socket.io-client's
 *             backoff); handshake refusals, the new process's CPU, bytes the clients received;
 * and beside each phase the event-loop delay of the load generator (main thread and the
 * sockets' worker) and of the service, so a stalled machine shows. Internal errors: error
 * lines in the service's logs, 5xx answers and INTERNAL_ERROR acks.
 * The machine is read too (scripts/bench-event-day/machine.ts): a loopback round trip and a JSON
 * probe before the run, the CPU time stolen by the host, the idle share and PostgreSQL's CPU per
 * phase, and a last line saying whether the machine was quiet (docs/event-day.md, "Is the
 * machine quiet?").
 * The load generator runs with the service's heap sizes (package.json's `bench:event-day`): with
 * Node's defaults, the answers of the details (288 kB each, 75 a second at 3 000 dancers) filled
 * its small old generation (socket buffers count there) and it collected it in full every
 * 0.2-0.3 s, pausing 2-7 ms plus its incremental steps while answers waited to be timed.
 * Ends with the targets (at the largest size) and the growth from 1 000 to 3 000 (judged as
 * printed, to two decimals), each with its verdict. Knobs: BENCH_EVENT_DAY_STEPS, BENCH_POLL_SECONDS (30), BENCH_CHAT_SECONDS (30),
 * BENCH_LOG_LEVEL (info), BENCH_PRESENCE (count), BENCH_CLIENT_THREADS (2), BENCH_READ_CACHE_MAX_MB, BENCH_DATABASE_POOL_SIZE, BENCH_DATABASE_POOL_MIN (= the pool's size), BENCH_WARMUP_MS (3000), BENCH_LISTEN_SOCKETS, BENCH_V8_TURBOFAN_CALLS, BENCH_V8_PRETENURING, BENCH_POLL_AGAIN (1: poll again after dropping every cached read), BENCH_POLL_ORDER (shuffled; grouped), BENCH_POLL_CLIENT (undici; http), BENCH_ACCEPT_ENCODING (the polls' header: a browser's by default, '' none), BENCH_KEEP_LOGS (1: keep the service logs), BENCH_PROFILE_FIRST_ROUND (<file>: a CPU profile of the service over the polling's first round), BENCH_SERVICE_NODE_ARGS, BENCH_SERVICE_ROOT, BENCH_SERVICE_BUILD (0: `src/server.ts` through tsx, as `npm start`, instead of the build), `-- --polling` (clients start on HTTP long-polling, then upgrade).
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import jwt from 'jsonwebtoken';
import { Client } from 'pg';
import WebSocket from 'ws';
import { freePort } from '../src/lib/embedded-postgres.js';
import {
  BROWSER_ACCEPT_ENCODING,
  runFixedRate,
  type FixedRateOptions,
  type FixedRateReport,
} from './bench-http/fixed-rate.js';
import { hotReadMix, seedWeekend, WEEKEND, type WeekendShape } from './bench-http/seed.js';
import { benchDatabase } from './lib/bench-database.js';
import { BenchProcesses, serviceEntry, serviceNodeFlags } from './lib/bench-process.js';
import { mulberry32 } from './lib/generate-event.js';
import {
  cpuSecondsOfPid,
  jsonProbeMs,
  loopbackRoundTrip,
  machineMark,
  machineSince,
  QUIET_STEAL_PCT,
  type MachineShare,
} from './bench-event-day/machine.js';

const STEPS = (process.env.BENCH_EVENT_DAY_STEPS ?? '300,1000,3000').split(',').map(Number);
const POLL_SECONDS = Number(process.env.BENCH_POLL_SECONDS ?? 30);
/**
 * 30 s (150 messages) rather than 10: a message reaches the room's sockets one after the other,
 * so the deliveries of one message are not independent samples, and over 50 messages one slow
 * fan-out was 2 % of them and set the p99 (its growth from 1 000 to 3 000 dancers ranged
 * 1.24-4.69× over ten runs: docs/event-day.md, "2026-11-28 00:00-01:30 UTC").
 */
const CHAT_SECONDS = Number(process.env.BENCH_CHAT_SECONDS ?? 30);
const CHAT_RATE = 5;
const POLL_EVERY_SECONDS = 5;
/**
 * How the dancers poll (scripts/bench-http/fixed-rate.ts): not in step with each other (a seeded
 * random order), through undici's client (`BENCH_POLL_CLIENT=http`: Node's `http.request`, the
 * client until 2026-11-28, which costs the load generator more per request and measured a higher
 * p99 at 3 000 dancers in five of seven paired runs: docs/event-day.md, "2026-11-28 00:00-01:30 UTC").
 */
const POLLING = {
  order: process.env.BENCH_POLL_ORDER === 'grouped' ? 'grouped' : 'shuffled',
  seed: 29,
  client: process.env.BENCH_POLL_CLIENT === 'http' ? 'http' : 'undici',
  // BENCH_ACCEPT_ENCODING: the polls' Accept-Encoding (unset: a browser's; '': none, as before 2026-12-03)
  acceptEncoding: process.env.BENCH_ACCEPT_ENCODING,
} as const satisfies FixedRateOptions;
const HEAT_CHANGE_SHARE = 0.05;
const TRANSPORTS = process.argv.includes('--polling') ? ['polling', 'websocket'] : ['websocket'];
/**
 * BENCH_PRESENCE: the clients' `auth.presence` (docs/realtime.md): count (the head count, the
 * list paged on demand: what our web app uses in big rooms; the default here), batched (the
 * whole list on join, the changes batched) or deltas (the protocol's default, a change each)
 */
const PRESENCE = process.env.BENCH_PRESENCE ?? 'count';
/** BENCH_CLIENT_THREADS: worker threads holding the dancers' sockets (each a share of them) */
const CLIENT_THREADS = Math.max(1, Number(process.env.BENCH_CLIENT_THREADS ?? 2));
if (PRESENCE !== 'deltas' && PRESENCE !== 'batched' && PRESENCE !== 'count')
  throw new Error(`BENCH_PRESENCE must be deltas, batched or count, not ${PRESENCE}`);

/** BENCH_SERVICE_ROOT: run the service from another checkout (with its node_modules), for before/after comparisons */
const root = process.env.BENCH_SERVICE_ROOT ?? path.resolve(__dirname, '..');
/**
 * The flags of `npm start` (its heap sizes, docs/operations.md), the inspector (the bench
 * collects the service's garbage through it), then BENCH_SERVICE_NODE_ARGS, e.g. `--cpu-prof
 * --cpu-prof-dir=prof` to profile the service (a flag given again there overrides the start's).
 */
const SERVICE_NODE_ARGS = [
  ...serviceNodeFlags(root),
  '--inspect=127.0.0.1:0',
  ...(process.env.BENCH_SERVICE_NODE_ARGS ?? '').split(' ').filter(Boolean),
];
const workDir = mkdtempSync(path.join(os.tmpdir(), 'wcs-bench-event-day-'));
const processes = new BenchProcesses(root, workDir);
const JWT_SECRET = 'bench-event-day-secret-that-is-at-least-32-characters';
const METRICS_TOKEN = 'bench-event-day-metrics-token-0123456789';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Per endpoint of a fixed-rate run: answered requests, p50 / p99 latency (ms), errors. */
function endpointRows(report: FixedRateReport) {
  return report.results.map((r) => {
    const sorted = r.latencies.sort((a, b) => a - b);
    return {
      name: r.name,
      count: sorted.length,
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
      errors: r.errors,
      errorKinds: r.errorKinds,
    };
  });
}
const now = () => performance.timeOrigin + performance.now();
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
/** The latencies of the samples sent in each of `count` windows of `seconds`, each sorted. */
function latenciesBy(samples: { sentAt: number; latency: number }[], seconds: number, count: number): number[][] {
  return Array.from({ length: count }, (_, i) =>
    samples
      .filter((x) => Math.floor(x.sentAt / 1000 / seconds) === i)
      .map((x) => x.latency)
      .sort((a, b) => a - b),
  );
}

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0
    ? NaN
    : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];

/**
 * The service's settings a bench run may set as BENCH_<name> (e.g. BENCH_V8_PRETENURING=true;
 * BENCH_V8_TURBOFAN_CALLS=0: V8's own count); unset, the service keeps its default.
 */
const PASSED_THROUGH = [
  'READ_CACHE_MAX_MB',
  'DATABASE_POOL_SIZE',
  'LISTEN_SOCKETS',
  'V8_TURBOFAN_CALLS',
  'V8_PRETENURING',
];

function passedThrough(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    PASSED_THROUGH.filter((name) => process.env[`BENCH_${name}`]).map((name) => [name, process.env[`BENCH_${name}`]]),
  );
}

function serviceEnv(databaseUrl: string, port: number): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: String(port),
    DATABASE_URL: databaseUrl,
    JWT_SECRET,
    METRICS_TOKEN,
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
    RATE_LIMIT_ENABLED: 'false',
    CSRF_ENABLED: 'false',
    MATCHING_SCHEDULER_ENABLED: 'false',
    REDIS_URL: '',
    SMTP_HOST: '127.0.0.1',
    SMTP_PORT: '2525',
    ...passedThrough(),
    // BENCH_DATABASE_POOL_MIN: the service's DATABASE_POOL_MIN; by default every connection of the
    // pool is kept, as docs/operations.md advises for a big event
    DATABASE_POOL_MIN: process.env.BENCH_DATABASE_POOL_MIN ?? process.env.BENCH_DATABASE_POOL_SIZE ?? '10',
    // BENCH_WARMUP_MS: the service's WARMUP_MS; by default 3 s, as docs/operations.md advises for a big event
    WARMUP_MS: process.env.BENCH_WARMUP_MS ?? '3000',
  };
}

/** The weekend of bench:http around a big event of `dancers` participants. */
function shapeFor(dancers: number): WeekendShape {
  const matches = Math.min(WEEKEND.matches, Math.floor((dancers - 40) / 2));
  return {
    ...WEEKEND,
    users: dancers + 100,
    bigEventParticipants: dancers,
    callers: Math.min(WEEKEND.callers, dancers),
    matches,
    matchBase: 10,
    // ids of one width (six digits) at every size, as in a service with a history: the
    // answers' bytes per dancer (the chat history's authors) then do not grow from 1 000 to
    // 3 000 dancers by their ids' digits, which would read as growth of the service
    firstUserId: 100_001,
  };
}

/** Resident set size of a process (KiB), from /proc. */
function rssKiB(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return Number(line?.split(/\s+/)[1] ?? NaN);
}

/**
 * One request (the ones sent here replace or run, so sending one again is harmless). A keep-alive
 * connection the service closed after its idle timeout just as it was reused is reset
 * (ECONNRESET); on a loaded machine that happened between batches of the heats changes, so such a
 * request is sent once more.
 */
async function api(baseUrl: string, method: string, pathname: string, token?: string, body?: unknown) {
  const init: RequestInit = {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body ? { 'content-type': 'application/json' } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  };
  const res = await fetch(`${baseUrl}${pathname}`, init).catch((err: Error & { cause?: { code?: string } }) => {
    if (err.cause?.code !== 'ECONNRESET') throw err;
    return fetch(`${baseUrl}${pathname}`, init); // the reset connection is gone: a new one
  });
  const json = (await res.json().catch(() => undefined)) as { data?: unknown } | undefined;
  return { status: res.status, body: json };
}

/**
 * A full garbage collection in the service, through its inspector (started with
 * `--inspect=127.0.0.1:0`; the address is read from its log), so that its memory is read
 * without the garbage of the last burst. Resolves false when no inspector answers.
 */
async function collectGarbage(logFile: string): Promise<boolean> {
  try {
    const inspector = await inspectorSession(logFile);
    try {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('no answer to HeapProfiler.collectGarbage')), 30_000);
      });
      await Promise.race([inspector.call('HeapProfiler.collectGarbage'), timeout]).finally(() => clearTimeout(timer));
      return true;
    } finally {
      inspector.close();
    }
  } catch {
    return false;
  }
}

/** A session on the service's inspector: `call` sends one method and resolves with its result. */
async function inspectorSession(logFile: string) {
  const url = /Debugger listening on (ws:\/\/\S+)/.exec(readFileSync(logFile, 'utf8'))?.[1];
  if (!url) throw new Error('the service has no inspector');
  const socket = new WebSocket(url);
  await new Promise<void>((resolve, reject) => socket.once('open', () => resolve()).once('error', reject));
  let next = 1;
  const waiting = new Map<number, { resolve(result: unknown): void; reject(err: Error): void }>();
  socket.on('message', (data) => {
    const msg = JSON.parse(String(data)) as { id?: number; result?: unknown };
    if (msg.id === undefined) return;
    waiting.get(msg.id)?.resolve(msg.result);
    waiting.delete(msg.id);
  });
  // a session lost midway fails the calls waiting on it, not the bench
  socket.on('error', () => undefined);
  socket.on('close', () => {
    for (const w of waiting.values()) w.reject(new Error('the inspector session closed'));
    waiting.clear();
  });
  return {
    call: <T>(method: string, params: object = {}): Promise<T> =>
      new Promise<T>((resolve, reject) => {
        const id = next++;
        waiting.set(id, { resolve: (r) => resolve(r as T), reject });
        socket.send(JSON.stringify({ id, method, params }));
      }),
    close: () => socket.close(),
  };
}

/**
 * BENCH_PROFILE_FIRST_ROUND=<file>: a CPU profile of the service over the polling's first round
 * (every dancer's first read), taken through its inspector at the largest size and written to
 * <file> (open it in Chrome's DevTools or speedscope).
 */
async function profileFirstRound(logFile: string, file: string, seconds: number): Promise<void> {
  const inspector = await inspectorSession(logFile);
  try {
    await inspector.call('Profiler.enable');
    await inspector.call('Profiler.setSamplingInterval', { interval: 200 });
    await inspector.call('Profiler.start');
    await sleep(seconds * 1000);
    const { profile } = await inspector.call<{ profile: unknown }>('Profiler.stop');
    writeFileSync(file, JSON.stringify(profile));
    console.log(`  the first round's CPU profile of the service: ${file}`);
  } finally {
    inspector.close();
  }
}

/** Unlabelled series of the service's metrics. */
async function serviceMetrics(baseUrl: string, names: string[]): Promise<number[]> {
  try {
    const res = await fetch(`${baseUrl}/api/metrics`, {
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
      signal: AbortSignal.timeout(60_000),
    });
    const lines = (await res.text()).split('\n');
    return names.map((name) => Number(lines.find((l) => l.startsWith(`${name} `))?.split(' ')[1] ?? NaN));
  } catch (err) {
    // a service too busy to answer its metrics is a finding, not the end of the run
    console.log(`  (metrics unanswered: ${(err as Error).message})`);
    return names.map(() => NaN);
  }
}

async function serviceLoopDelay(baseUrl: string): Promise<{ p99: number; max: number }> {
  const [p99, max] = await serviceMetrics(baseUrl, [
    'nodejs_eventloop_lag_p99_seconds',
    'nodejs_eventloop_lag_max_seconds',
  ]);
  return { p99: p99 * 1000, max: max * 1000 };
}

/** The service's V8 heap in use and memory outside it (buffers), KiB: where the RSS goes. */
async function serviceMemory(baseUrl: string): Promise<{ heap: number; external: number; text: string }> {
  const [heap, external] = (
    await serviceMetrics(baseUrl, ['nodejs_heap_size_used_bytes', 'nodejs_external_memory_bytes'])
  ).map((b) => b / 1024);
  return {
    heap,
    external,
    text: `heap used ${(heap / 1024).toFixed(0)} MiB, external ${(external / 1024).toFixed(0)} MiB`,
  };
}

/** Error-level lines (pino level ≥ 50) in a service log. */
function errorLines(file: string): number {
  try {
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => /"level":(50|60)/.test(l)).length;
  } catch {
    return 0;
  }
}

interface LoopDelay {
  p99: number;
  max: number;
}

interface StepResult {
  dancers: number;
  load: Record<string, string>;
  /** the service's CPU seconds per phase */
  cpu: Record<string, number>;
  /** per phase: the machine's stolen and idle shares, PostgreSQL's CPU (undefined off Linux) */
  machine: Record<string, MachineShare | undefined>;
  connect: {
    seconds: number;
    inRoom: number;
    firstTryRefused: number;
    refusals: Record<string, number>;
    joinErrors: Record<string, number>;
    rssPerSocketKiB: number;
    heapPerSocketKiB: number;
    idleRssMiB: number;
    worker: LoopDelay;
    receivedMiB: number;
    generatorCpuSeconds: number;
  };
  chat: {
    p50: number;
    p99: number;
    max: number;
    lost: number;
    acked: number;
    sent: number;
    refused: Record<string, number>;
    worker: LoopDelay;
  };
  polling: {
    rate: number;
    rows: {
      name: string;
      count: number;
      p50: number;
      p99: number;
      errors: number;
      errorKinds: Record<string, number>;
    }[];
    generator: LoopDelay;
    service: LoopDelay;
    maxLateness: number;
  };
  matching: {
    firstSeconds: number;
    rerunSeconds: number;
    heatChanges: number;
    heatsSeconds: number;
    noticesSeconds: number;
  };
  storm: {
    seconds: number;
    medianSeconds: number;
    inRoom: number;
    restartSeconds: number;
    firstTryRefused: number;
    refusals: Record<string, number>;
    joinErrors: Record<string, number>;
    cpuSeconds: number;
    receivedMiB: number;
    worker: LoopDelay;
  };
  internalErrors: number;
}

/** The counters every worker reports with each phase (clients.cjs `report`). */
interface WorkerPhase {
  refusals: Record<string, number>;
  firstTryRefused: number;
  transportErrors: number;
  joinErrors: Record<string, number>;
  bytes: number;
  /** the bytes by what they carried: an event's name, `ack`, or an Engine.IO packet type */
  bytesBy: Record<string, number>;
  loopP99: number;
  loopMax: number;
}

/** A phase's bytes by what they carried, per dancer, largest first (e.g. `ack 4412.3, presence_count 70.1`). */
function bytesEach(bytesBy: Record<string, number>, dancers: number): string {
  return Object.entries(bytesBy)
    .sort((a, b) => b[1] - a[1])
    .map(([kind, bytes]) => `${kind} ${(bytes / dancers).toFixed(1)}`)
    .join(', ');
}

/** The phase counters of several workers as one: sums, and the worst loop delay. */
function mergePhases(parts: WorkerPhase[]): WorkerPhase {
  const sumMaps = (maps: Record<string, number>[]) => {
    const out: Record<string, number> = {};
    for (const m of maps) for (const [k, v] of Object.entries(m)) out[k] = (out[k] ?? 0) + v;
    return out;
  };
  return {
    refusals: sumMaps(parts.map((p) => p.refusals)),
    firstTryRefused: parts.reduce((n, p) => n + p.firstTryRefused, 0),
    transportErrors: parts.reduce((n, p) => n + p.transportErrors, 0),
    joinErrors: sumMaps(parts.map((p) => p.joinErrors)),
    bytes: parts.reduce((n, p) => n + p.bytes, 0),
    bytesBy: sumMaps(parts.map((p) => p.bytesBy)),
    loopP99: Math.max(...parts.map((p) => p.loopP99)),
    loopMax: Math.max(...parts.map((p) => p.loopMax)),
  };
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];

/**
 * The dancers' sockets: CLIENT_THREADS workers (clients.cjs), each holding its share of the
 * dancers, so the phones' parsing of what the service sends uses more than one core of the
 * load generator (one thread lagged seconds in the storm at 3 000). Their replies are merged.
 */
function startClients(url: string, tokens: string[], slug: string) {
  const workers = Array.from({ length: Math.min(CLIENT_THREADS, tokens.length) }, (_, k) => {
    const worker = new Worker(path.join(__dirname, 'bench-event-day', 'clients.cjs'), {
      workerData: {
        url,
        tokens: tokens.filter((_, i) => i % CLIENT_THREADS === k),
        slug,
        transports: TRANSPORTS,
        presence: PRESENCE,
        clientPath: require.resolve('socket.io-client'),
      },
    });
    const ask = <T>(message: object) =>
      new Promise<T>((resolve, reject) => {
        const onError = (err: Error) => reject(err);
        worker.once('error', onError);
        worker.once('message', (m: T) => {
          worker.off('error', onError);
          resolve(m);
        });
        worker.postMessage(message);
      });
    return { worker, ask };
  });
  const all = <T>(message: object) => Promise.all(workers.map((w) => w.ask<T>(message)));

  return {
    async connect(timeoutMs: number) {
      const parts = await all<WorkerPhase & { startedAt: number; inRoom: number; lastJoinedAt: number }>({
        type: 'connect',
        timeoutMs,
      });
      return {
        ...mergePhases(parts),
        startedAt: Math.min(...parts.map((p) => p.startedAt)),
        inRoom: parts.reduce((n, p) => n + p.inRoom, 0),
        lastJoinedAt: Math.max(...parts.map((p) => p.lastJoinedAt)),
      };
    },
    storm: () => all({ type: 'storm' }),
    async stormWait(healthyAt: number, deadline: number) {
      const parts = await all<
        WorkerPhase & {
          inRoom: number;
          lastJoinedAt: number;
          joinTimes: number[];
          connectedAfterHealth: number[];
          joinAfterConnect: number[];
          attemptAfterHealth: number[];
          connectAfterAttempt: number[];
        }
      >({ type: 'storm-wait', healthyAt, deadline });
      const sorted = (values: number[]) => values.filter(Number.isFinite).sort((a, b) => a - b);
      const quantiles = (values: number[]) => [0.1, 0.5, 0.9, 1].map((q) => quantile(sorted(values), q));
      const joinTimes = sorted(parts.flatMap((p) => p.joinTimes));
      return {
        ...mergePhases(parts),
        inRoom: parts.reduce((n, p) => n + p.inRoom, 0),
        lastJoinedAt: Math.max(...parts.map((p) => p.lastJoinedAt)),
        medianAfterHealth: quantile(joinTimes, 0.5) - healthyAt,
        connectedAfterHealth: quantiles(parts.flatMap((p) => p.connectedAfterHealth)),
        joinAfterConnect: quantiles(parts.flatMap((p) => p.joinAfterConnect)),
        attemptAfterHealth: quantiles(parts.flatMap((p) => p.attemptAfterHealth)),
        connectAfterAttempt: quantiles(parts.flatMap((p) => p.connectAfterAttempt)),
      };
    },
    /** rate messages per second for `seconds`, sent by the first worker's dancers, received by everyone */
    async chat(rate: number, seconds: number, settleMs: number) {
      await all({ type: 'chat-reset' });
      const sent = await workers[0].ask<{ sent: number; acked: number[]; refused: Record<string, number> }>({
        type: 'chat-send',
        rate,
        seconds,
      });
      const parts = await all<WorkerPhase & { expected: number; received: number; latencies: number[] }>({
        type: 'chat-collect',
        acked: sent.acked,
        settleMs,
      });
      const latencies = parts.flatMap((p) => p.latencies).sort((a, b) => a - b);
      const q = (p: number) => (latencies.length ? quantile(latencies, p) : NaN);
      const merged = mergePhases(parts);
      return {
        sent: sent.sent,
        acked: sent.acked.length,
        refused: sent.refused,
        expected: parts.reduce((n, p) => n + p.expected, 0),
        received: parts.reduce((n, p) => n + p.received, 0),
        p50: q(0.5),
        p99: q(0.99),
        max: latencies[latencies.length - 1],
        loopP99: merged.loopP99,
        loopMax: merged.loopMax,
      };
    },
    heatsReset: () => all({ type: 'heats-reset' }),
    /** until every client got `each` heats_updated since heatsReset (or the deadline): the instant the last one did */
    async heatsWait(each: number, deadline: number) {
      const parts = await all<{ expected: number; received: number; at: number }>({
        type: 'heats-wait',
        each,
        deadline,
      });
      return {
        expected: parts.reduce((n, p) => n + p.expected, 0),
        received: parts.reduce((n, p) => n + p.received, 0),
        at: Math.max(...parts.map((p) => p.at)),
      };
    },
    close: () => all({ type: 'close' }),
    terminate: () => Promise.all(workers.map((w) => w.worker.terminate())),
  };
}

/** `entry`: the service's build (or, with BENCH_SERVICE_BUILD=0, `src/server.ts` through tsx): serviceEntry in scripts/lib/bench-process.ts */
async function runStep(dancers: number, entry: string): Promise<StepResult> {
  const database = benchDatabase(`wcs_event_day_${dancers}`);
  await database.create();
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const env = serviceEnv(database.url, port);
  const logName = (k: number) => `service-${dancers}-${k}`;
  // process 0 applies the migrations and serves the seeding's requests; process 1, started on
  // the event's data as one started during an event (its warm-up reads it), is measured
  let service: ChildProcess = processes.start(logName(0), entry, env, [], SERVICE_NODE_ARGS);
  let clients: ReturnType<typeof startClients> | undefined;
  const loads: Record<string, string> = {};
  try {
    await processes.waitForHttp(`${baseUrl}/api/health`, service, logName(0));
    const db = new Client({ connectionString: database.url });
    await db.connect();
    const seedStart = performance.now();
    const weekend = await seedWeekend(db, undefined, shapeFor(dancers));
    const adminId = (
      await db.query<{ id: number }>(
        `UPDATE "User" SET "isAdmin" = true WHERE id = (SELECT max(id) FROM "User") RETURNING id`,
      )
    ).rows[0].id;
    await db.end();
    const sign = (id: number) =>
      jwt.sign({ ev: true }, JWT_SECRET, { algorithm: 'HS256', subject: String(id), expiresIn: 6 * 3600 });
    const tokens = weekend.participantIds.map(sign);
    const adminToken = sign(adminId);
    const slug = weekend.bigEventSlug;
    const run = async () => {
      const t0 = performance.now();
      const res = await api(baseUrl, 'POST', `/api/admin/events/${slug}/matching-runs`, adminToken, {});
      if (res.status !== 201)
        throw new Error(`matching run answered ${res.status}: ${JSON.stringify(res.body).slice(0, 300)}`);
      return (performance.now() - t0) / 1000;
    };
    const firstSeconds = await run();
    console.log(
      `\n[${dancers} dancers] seeded and matched in ${((performance.now() - seedStart) / 1000).toFixed(1)} s (first run ${firstSeconds.toFixed(2)} s); load ${load()}`,
    );
    await processes.stop(service, 30_000);
    service = processes.start(logName(1), entry, env, [], SERVICE_NODE_ARGS);
    await processes.waitForHttp(`${baseUrl}/api/health`, service, logName(1), 120_000, 25);
    const warmed = /(warmed up|warm-up stopped)[^"]*/.exec(readFileSync(processes.logFile(logName(1)), 'utf8'));
    if (warmed) console.log(`  started again on the event's data: ${warmed[0]}`);
    // the warm-up reads the busiest current event: another one leaves the polls' first reads cold
    if (warmed?.[1] === 'warmed up' && !warmed[0].includes(` of ${slug} `))
      console.log(`  (the warm-up did not read ${slug}: its first polls are not those of a warmed process)`);
    await sleep(2000);
    await collectGarbage(processes.logFile(logName(1)));
    const idleRss = rssKiB(service.pid!);
    const idleMemory = await serviceMemory(baseUrl);

    // Every phase is measured alike: the load average when it starts and the service's CPU
    // seconds it took (on a shared machine a steadier figure than wall time).
    const cpu: Record<string, number> = {};
    const machine: Record<string, MachineShare | undefined> = {};
    const phase = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
      loads[name] ??= load();
      const cpuAtStart = cpuSecondsOfPid(service.pid!);
      const machineAtStart = machineMark();
      const result = await work();
      cpu[name] = cpuSecondsOfPid(service.pid!) - cpuAtStart;
      machine[name] = machineSince(machineAtStart);
      return result;
    };

    // connect: every dancer at once
    clients = startClients(baseUrl, tokens, slug);
    const socketClients = clients;
    const generatorCpuAtConnect = process.cpuUsage();
    const connected = await phase('connect', () => socketClients.connect(300_000));
    const generatorConnectCpu = process.cpuUsage(generatorCpuAtConnect);
    const connect = {
      seconds: (connected.lastJoinedAt - connected.startedAt) / 1000,
      inRoom: connected.inRoom,
      firstTryRefused: connected.firstTryRefused,
      refusals: connected.refusals,
      joinErrors: connected.joinErrors,
      rssPerSocketKiB: NaN, // measured once the joins' write buffers have drained (after the chat)
      heapPerSocketKiB: NaN,
      idleRssMiB: idleRss / 1024,
      worker: { p99: connected.loopP99, max: connected.loopMax },
      // every joiner's member list and every member's news of later joiners: quadratic by contract
      receivedMiB: connected.bytes / 1024 / 1024,
      generatorCpuSeconds: (generatorConnectCpu.user + generatorConnectCpu.system) / 1e6,
    };
    console.log(
      `  connect: ${connect.inRoom}/${dancers} in the room after ${connect.seconds.toFixed(1)} s; first try refused ${connect.firstTryRefused} ${JSON.stringify(connect.refusals)}; ` +
        `clients received ${connect.receivedMiB.toFixed(1)} MiB (${((connect.receivedMiB * 1024 * 1024) / dancers).toFixed(0)} bytes each), load generator CPU ${connect.generatorCpuSeconds.toFixed(1)} s, ` +
        `loop delay p99 / max of the sockets' workers ${connect.worker.p99.toFixed(0)} / ${connect.worker.max.toFixed(0)} ms; load ${loads.connect}`,
    );
    console.log(`    bytes each by what they carried: ${bytesEach(connected.bytesBy, dancers)}`);

    // chat: 5 messages/s to the room
    const chatted = await phase('chat', () => socketClients.chat(CHAT_RATE, CHAT_SECONDS, 30_000));
    const chat = {
      p50: chatted.p50,
      p99: chatted.p99,
      max: chatted.max,
      lost: chatted.expected - chatted.received,
      acked: chatted.acked,
      sent: chatted.sent,
      refused: chatted.refused,
      worker: { p99: chatted.loopP99, max: chatted.loopMax },
    };
    await sleep(3000);
    const collected = await collectGarbage(processes.logFile(logName(1)));
    const connectedRss = rssKiB(service.pid!);
    const connectedMemory = await serviceMemory(baseUrl);
    connect.rssPerSocketKiB = (connectedRss - idleRss) / dancers;
    connect.heapPerSocketKiB =
      (connectedMemory.heap + connectedMemory.external - idleMemory.heap - idleMemory.external) / dancers;
    console.log(
      `  RSS with every socket connected (after the chat${collected ? ' and a full GC' : ''}): ${(connectedRss / 1024).toFixed(0)} MiB (idle ${connect.idleRssMiB.toFixed(0)}), ` +
        `${connect.rssPerSocketKiB.toFixed(1)} KiB/socket; ${connectedMemory.text} (idle: ${idleMemory.text}), ${connect.heapPerSocketKiB.toFixed(1)} KiB/socket`,
    );
    console.log(
      `  chat: ${chat.acked}/${chat.sent} sent, delivery p50 ${chat.p50.toFixed(1)} ms p99 ${chat.p99.toFixed(1)} ms max ${chat.max.toFixed(1)} ms, lost ${chat.lost}; load ${loads.chat}`,
    );

    // polling: one request per dancer every 5 s, sockets connected
    const rate = dancers / POLL_EVERY_SECONDS;
    await serviceLoopDelay(baseUrl); // prom-client resets its histogram at every scrape
    const cacheSeries = [
      'wcs_read_cache_lookups_total{result="hit"}',
      'wcs_read_cache_lookups_total{result="miss"}',
      'wcs_db_queries_total',
    ];
    const cacheBefore = await serviceMetrics(baseUrl, cacheSeries);
    const generatorLoop = monitorEventLoopDelay({ resolution: 10 });
    generatorLoop.enable();
    const profileFile = process.env.BENCH_PROFILE_FIRST_ROUND;
    const profiling =
      profileFile && dancers === STEPS.at(-1)
        ? profileFirstRound(processes.logFile(logName(1)), path.resolve(profileFile), POLL_EVERY_SECONDS).catch(
            (err: unknown) => console.log(`  (no first-round profile: ${(err as Error).message})`),
          )
        : undefined;
    const fixed = await phase('polling', () =>
      runFixedRate(baseUrl, hotReadMix(slug), tokens, rate, POLL_SECONDS, POLLING),
    );
    await profiling;
    generatorLoop.disable();
    const serviceLoop = await serviceLoopDelay(baseUrl);
    // a series is absent until its first lookup
    const [hits, misses, statements] = (await serviceMetrics(baseUrl, cacheSeries)).map(
      (v, i) => v - (cacheBefore[i] || 0),
    );
    const polling = {
      rate,
      rows: endpointRows(fixed),
      generator: { p99: generatorLoop.percentile(99) / 1e6, max: generatorLoop.max / 1e6 },
      service: serviceLoop,
      maxLateness: fixed.maxLateness,
    };
    // the session check and the answer are each one lookup (src/middleware/cached-read.ts)
    console.log(
      `  polling: ${rate} req/s × ${POLL_SECONDS} s; read cache ${hits} hits, ${misses} misses (${((100 * hits) / (hits + misses)).toFixed(0)} % hits), ${statements} SQL statements (fences included); ${fixed.retriedResets} sent again after a keep-alive reset; load ${loads.polling}`,
    );
    for (const r of polling.rows)
      console.log(
        `    ${r.name.padEnd(42)} ${String(r.count).padStart(6)} p50 ${r.p50.toFixed(1).padStart(6)} ms  p99 ${r.p99.toFixed(1).padStart(7)} ms  errors ${r.errors}${r.errors > 0 ? ` ${JSON.stringify(r.errorKinds)}` : ''}`,
      );
    // every endpoint together, per round of polls (each dancer's first read is a miss), and the
    // first round second by second: where the queue of first reads (all misses, code not yet optimised) builds and drains
    const rounds = latenciesBy(fixed.samples, POLL_EVERY_SECONDS, Math.ceil(POLL_SECONDS / POLL_EVERY_SECONDS));
    const firstRound = latenciesBy(fixed.samples, 1, POLL_EVERY_SECONDS);
    const p50p99 = (r: number[]) => `${percentile(r, 50).toFixed(1)} / ${percentile(r, 99).toFixed(1)}`;
    console.log(`    p50 / p99 per round of ${POLL_EVERY_SECONDS} s (ms): ${rounds.map(p50p99).join(', ')}`);
    console.log(
      `    first round, p50 / p99 / max per second sent (ms): ${firstRound.map((r) => `${p50p99(r)} / ${(r.at(-1) ?? NaN).toFixed(0)}`).join(', ')}`,
    );

    // BENCH_POLL_AGAIN=1: the same polling once more after every cached read was dropped (as an
    // admin's edit of the event drops them), i.e. first reads in a process whose code, pool and
    // shared parts are warm: what of the first round is the process's start and what the reads'
    if (process.env.BENCH_POLL_AGAIN === '1') {
      // a change notice of every table (src/lib/read-cache.ts) drops every entry
      const c = new Client({ connectionString: database.url });
      await c.connect();
      const tables = await c.query<{ t: string }>(`SELECT tablename AS t FROM pg_tables WHERE schemaname = 'public'`);
      for (const { t } of tables.rows) await c.query(`SELECT pg_notify('wcs_changes', $1)`, [t]);
      await c.end();
      await sleep(2000);
      const again = await runFixedRate(baseUrl, hotReadMix(slug), tokens, rate, POLL_SECONDS, POLLING);
      const all = again.results.flatMap((r) => r.latencies).sort((a, b) => a - b);
      const rows = endpointRows(again);
      const p99s = rows.map((r) => r.p99);
      console.log(
        `  polling again, every cached read dropped: p50 ${percentile(all, 50).toFixed(1)} ms, p99 ${percentile(all, 99).toFixed(1)} ms (per endpoint ${Math.min(...p99s).toFixed(0)}-${Math.max(...p99s).toFixed(0)}), errors ${rows.reduce((n, r) => n + r.errors, 0)}`,
      );
      const againRounds = latenciesBy(again.samples, POLL_EVERY_SECONDS, Math.ceil(POLL_SECONDS / POLL_EVERY_SECONDS));
      const againFirst = latenciesBy(again.samples, 1, POLL_EVERY_SECONDS);
      console.log(
        `    p50 / p99 per round (ms): ${againRounds.map(p50p99).join(', ')}; first round per second: ${againFirst.map(p50p99).join(', ')}`,
      );
    }
    // matching: 5 % of the dancers replace their heats through the API, then a re-run
    loads.matching = load();
    const rnd = mulberry32(dancers);
    const movers = weekend.participantIds.filter(() => rnd() < HEAT_CHANGE_SHARE);
    // the heat changes, 10 at a time: each is broadcast to the whole room (heats_updated), so
    // the room receives dancers × movers notices (quadratic by contract); their time and CPU are
    // shown without a target
    const phones = clients;
    await phones.heatsReset();
    const heatsStart = performance.now();
    const heatNotices = await phase('heats', async () => {
      for (let i = 0; i < movers.length; i += 10) {
        await Promise.all(
          movers.slice(i, i + 10).map(async (id) => {
            const heats = [
              {
                divisionId: 1 + Math.floor(rnd() * 6),
                competitionTypeId: 1 + Math.floor(rnd() * 2),
                heatNumber: 1 + Math.floor(rnd() * 9),
                role: rnd() < 0.5 ? 'Leader' : 'Follower',
              },
            ];
            const res = await api(baseUrl, 'POST', `/api/events/${slug}/heats`, sign(id), { heats });
            if (res.status !== 200)
              throw new Error(`heats answered ${res.status}: ${JSON.stringify(res.body).slice(0, 300)}`);
          }),
        );
      }
      const answeredAt = performance.now();
      // then every phone has every change's notice (batched per room: src/realtime/room-batches.ts)
      const notices = await phones.heatsWait(movers.length, Date.now() + 60_000);
      return { ...notices, answeredAt };
    });
    const heatsSeconds = (heatNotices.answeredAt - heatsStart) / 1000;
    const noticesSeconds = (performance.now() - heatsStart) / 1000;
    const rerunSeconds = await phase('rerun', run);
    const matching = { firstSeconds, rerunSeconds, heatChanges: movers.length, heatsSeconds, noticesSeconds };
    console.log(
      `  matching: ${movers.length} dancers changed heats in ${heatsSeconds.toFixed(2)} s, every phone had every change's heats_updated after ${noticesSeconds.toFixed(2)} s (${heatNotices.received}/${heatNotices.expected}; service CPU ${cpu.heats.toFixed(1)} s); re-run ${rerunSeconds.toFixed(2)} s end to end; load ${loads.matching}`,
    );

    // storm: SIGTERM, start again, everyone back in the room
    loads.storm = load();
    await clients.storm();
    await processes.stop(service, 30_000);
    const restartAt = now();
    service = processes.start(logName(2), entry, env, [], SERVICE_NODE_ARGS);
    await processes.waitForHttp(`${baseUrl}/api/health`, service, logName(2), 120_000, 25);
    const healthyAt = now();
    const cpuAtHealth = cpuSecondsOfPid(service.pid!);
    const machineAtHealth = machineMark();
    const generatorCpuAtHealth = process.cpuUsage();
    void serviceLoopDelay(baseUrl); // resets prom-client's histogram: the storm's delay from here
    const back = await clients.stormWait(healthyAt, healthyAt + 180_000);
    machine.storm = machineSince(machineAtHealth);
    const stormServiceLoop = await serviceLoopDelay(baseUrl);
    // this process with its worker threads: the load generator's CPU while the phones came back
    const generatorCpu = process.cpuUsage(generatorCpuAtHealth);
    const generatorCpuSeconds = (generatorCpu.user + generatorCpu.system) / 1e6;
    const storm = {
      seconds: (back.lastJoinedAt - healthyAt) / 1000,
      medianSeconds: back.medianAfterHealth / 1000,
      inRoom: back.inRoom,
      restartSeconds: (healthyAt - restartAt) / 1000,
      firstTryRefused: back.firstTryRefused,
      refusals: back.refusals,
      joinErrors: back.joinErrors,
      cpuSeconds: cpuSecondsOfPid(service.pid!) - cpuAtHealth,
      receivedMiB: back.bytes / 1024 / 1024,
      worker: { p99: back.loopP99, max: back.loopMax },
    };
    console.log(
      `  storm: restart to healthy ${storm.restartSeconds.toFixed(1)} s; ${storm.inRoom}/${dancers} back in the room ${storm.seconds.toFixed(1)} s after health (median ${storm.medianSeconds.toFixed(1)} s); ` +
        `handshakes refused at first try ${storm.firstTryRefused} ${JSON.stringify(storm.refusals)}, join errors ${JSON.stringify(storm.joinErrors)}; service CPU ${storm.cpuSeconds.toFixed(1)} s; clients received ${storm.receivedMiB.toFixed(1)} MiB (${((storm.receivedMiB * 1024 * 1024) / dancers).toFixed(0)} bytes each); load ${loads.storm}`,
    );
    console.log(`    bytes each by what they carried: ${bytesEach(back.bytesBy, dancers)}`);

    const seconds = (values: number[]) => values.map((v) => (v / 1000).toFixed(1)).join(' / ');
    console.log(
      `    handshake accepted after health, p10 / p50 / p90 / max (s): ${seconds(back.connectedAfterHealth)}; ` +
        `then the join answered: ${seconds(back.joinAfterConnect)}; transport errors ${back.transportErrors}`,
    );
    // the handshake's wait split: the client's backoff until its successful attempt, then the handshake itself
    console.log(
      `    the successful attempt after health (backoff): ${seconds(back.attemptAfterHealth)}; ` +
        `its handshake accepted after: ${seconds(back.connectAfterAttempt)}; ` +
        `load generator CPU ${generatorCpuSeconds.toFixed(1)} s (${(generatorCpu.system / 1e6).toFixed(1)} s in the kernel); ` +
        `loop delay p99 / max (ms): service ${stormServiceLoop.p99.toFixed(0)} / ${stormServiceLoop.max.toFixed(0)}, ` +
        `sockets' workers ${back.loopP99.toFixed(0)} / ${back.loopMax.toFixed(0)}`,
    );

    await clients.close();
    const fiveHundreds = polling.rows.reduce((n, r) => n + r.errors, 0);
    const internalErrors =
      errorLines(processes.logFile(logName(0))) +
      errorLines(processes.logFile(logName(1))) +
      errorLines(processes.logFile(logName(2))) +
      (chat.refused.INTERNAL_ERROR ?? 0) +
      (storm.joinErrors.INTERNAL_ERROR ?? 0) +
      (connect.joinErrors.INTERNAL_ERROR ?? 0);
    if (fiveHundreds > 0) console.log(`  polling errors (non-200): ${fiveHundreds}`);
    console.log(
      `  service CPU seconds: ${Object.entries({ ...cpu, storm: storm.cpuSeconds })
        .map(([k, v]) => `${k} ${v.toFixed(1)}`)
        .join(', ')}`,
    );
    const shares = Object.entries(machine).filter((e): e is [string, MachineShare] => e[1] !== undefined);
    if (shares.length > 0)
      console.log(
        `  the machine (all cores) per phase, stolen by the host / idle (%), PostgreSQL CPU (s): ${shares
          .map(
            ([k, m]) => `${k} ${m.stolenPct.toFixed(1)} / ${m.idlePct.toFixed(0)}, ${m.postgresCpuSeconds.toFixed(1)}`,
          )
          .join('; ')}`,
      );
    return { dancers, load: loads, cpu, machine, connect, chat, polling, matching, storm, internalErrors };
  } finally {
    await clients?.terminate();
    await processes.stop(service);
    await database.drop().catch((err: unknown) => console.error('drop failed:', err));
  }
}

// ------------------------------------------------------------------------------ the table

interface Figure {
  name: string;
  unit: string;
  value: (r: StepResult) => number;
  /** the target at 3 000 dancers (value ≤ target), if any */
  target?: number;
  /** whether the growth from 1 000 to 3 000 must be at most 3× */
  growth?: boolean;
}

/** The phases whose figures have targets: the host's share of their CPU time is printed with them. */
const MEASURED_PHASES = ['connect', 'chat', 'polling', 'storm'] as const;

const figures = (results: StepResult[]): Figure[] => {
  const endpoints = results[0]?.polling.rows.map((r) => r.name) ?? [];
  return [
    { name: 'connect: all in the room', unit: 's', value: (r) => r.connect.seconds, growth: true },
    { name: 'connect: first-try refusals', unit: '', value: (r) => r.connect.firstTryRefused },
    { name: 'connect: service CPU', unit: 's', value: (r) => r.cpu.connect, growth: true },
    { name: 'connect: bytes received by clients', unit: 'MiB', value: (r) => r.connect.receivedMiB, growth: true },
    { name: 'connect: load generator CPU', unit: 's', value: (r) => r.connect.generatorCpuSeconds },
    {
      name: 'connect: RSS per socket',
      unit: 'KiB',
      value: (r) => r.connect.rssPerSocketKiB,
      target: 100,
      growth: true,
    },
    {
      name: 'connect: heap + external per socket',
      unit: 'KiB',
      value: (r) => r.connect.heapPerSocketKiB,
      growth: true,
    },
    { name: 'storm: all back after health', unit: 's', value: (r) => r.storm.seconds, target: 15, growth: true },
    { name: 'storm: median back after health', unit: 's', value: (r) => r.storm.medianSeconds, growth: true },
    { name: 'storm: first-try refusals', unit: '', value: (r) => r.storm.firstTryRefused },
    { name: 'storm: service CPU until all back', unit: 's', value: (r) => r.storm.cpuSeconds, growth: true },
    { name: 'storm: bytes received by clients', unit: 'MiB', value: (r) => r.storm.receivedMiB, growth: true },
    { name: 'internal errors', unit: '', value: (r) => r.internalErrors, target: 0 },
    { name: 'chat: delivery p50', unit: 'ms', value: (r) => r.chat.p50, growth: true },
    { name: 'chat: delivery p99', unit: 'ms', value: (r) => r.chat.p99, target: 250, growth: true },
    { name: 'chat: lost deliveries', unit: '', value: (r) => r.chat.lost, target: 0 },
    { name: 'chat: service CPU', unit: 's', value: (r) => r.cpu.chat, growth: true },
    {
      name: 'polling: service CPU per 1 000 requests',
      unit: 's',
      value: (r) => (r.cpu.polling * 1000) / (r.polling.rate * POLL_SECONDS),
      growth: true,
    },
    ...endpoints.flatMap((name): Figure[] => {
      const row = (r: StepResult) => r.polling.rows.find((x) => x.name === name)!;
      const details = name.endsWith('/details');
      return [
        { name: `poll ${name} p50`, unit: 'ms', value: (r) => row(r).p50, growth: true },
        { name: `poll ${name} p99`, unit: 'ms', value: (r) => row(r).p99, target: details ? 150 : 50, growth: true },
        { name: `poll ${name} errors`, unit: '', value: (r) => row(r).errors, target: 0 },
      ];
    }),
    { name: 'matching: heat changes, 10 at a time', unit: 's', value: (r) => r.matching.heatsSeconds },
    { name: 'matching: heat changes, all notices delivered', unit: 's', value: (r) => r.matching.noticesSeconds },
    { name: 'matching: heat changes, service CPU', unit: 's', value: (r) => r.cpu.heats },
    {
      name: 'matching: re-run end to end',
      unit: 's',
      value: (r) => r.matching.rerunSeconds,
      target: 1.5,
      growth: true,
    },
    { name: 'loop delay p99: generator main', unit: 'ms', value: (r) => r.polling.generator.p99 },
    { name: 'loop delay p99: generator sockets (storm)', unit: 'ms', value: (r) => r.storm.worker.p99 },
    { name: 'loop delay p99: service (polling)', unit: 'ms', value: (r) => r.polling.service.p99 },
    { name: 'loop delay max: service (polling)', unit: 'ms', value: (r) => r.polling.service.max },
    ...MEASURED_PHASES.map((p): Figure => ({
      name: `host: CPU time stolen, ${p}`,
      unit: '%',
      value: (r) => r.machine[p]?.stolenPct ?? NaN,
    })),
    ...MEASURED_PHASES.map((p): Figure => ({
      name: `PostgreSQL CPU, ${p}`,
      unit: 's',
      value: (r) => r.machine[p]?.postgresCpuSeconds ?? NaN,
    })),
  ];
};

/** The machine's speed before the run (scripts/bench-event-day/machine.ts). */
interface MachineProbe {
  p50: number;
  p99: number;
  jsonMs: number;
}

const probeText = (probe: MachineProbe) =>
  `loopback round trip between two processes p50 ${probe.p50.toFixed(0)} µs, p99 ${probe.p99.toFixed(0)} µs, JSON probe ${probe.jsonMs.toFixed(0)} ms`;

/**
 * Whether the host left the machine to the bench (docs/event-day.md, "Is the machine quiet?"):
 * at most QUIET_STEAL_PCT % of the CPU time stolen in every measured phase of the largest size.
 */
function machineVerdict(largest: StepResult, roundTrip: MachineProbe | undefined): string {
  const trip = roundTrip ? `; before the run: ${probeText(roundTrip)}` : '';
  const stolen = MEASURED_PHASES.flatMap((p) => {
    const m = largest.machine[p];
    return m ? [[p, m.stolenPct] as const] : [];
  });
  if (stolen.length === 0) return `the machine: no /proc/stat, its steal not read${trip}`;
  const busy = stolen.filter(([, pct]) => pct > QUIET_STEAL_PCT);
  const list = (l: readonly (readonly [string, number])[]) =>
    l.map(([p, pct]) => `${p} ${pct.toFixed(1)} %`).join(', ');
  return busy.length === 0
    ? `the machine was quiet: at most ${QUIET_STEAL_PCT} % of the CPU time stolen by the host in every phase at ${largest.dancers} dancers (${list(stolen)})${trip}`
    : `the machine was NOT quiet: the host took more than ${QUIET_STEAL_PCT} % of the CPU time at ${largest.dancers} dancers in ${list(busy)}; the figures above measure the host too${trip}`;
}

function printTable(results: StepResult[], roundTrip?: MachineProbe): void {
  const fmt = (v: number) =>
    Number.isNaN(v) ? '–' : Math.abs(v) >= 100 ? v.toFixed(0) : v.toFixed(Number.isInteger(v) ? 0 : 1);
  const largest = results.at(-1)!;
  const r1000 = results.find((r) => r.dancers === 1000);
  const r3000 = results.find((r) => r.dancers === 3000);
  console.log('');
  console.log(
    `bench:event-day ${new Date().toISOString()} on ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}, load average now ${load()}`,
  );
  console.log(
    `  service, PostgreSQL and load generator on this machine; transports ${TRANSPORTS.join('+')}; presence ${PRESENCE}; dancers' sockets in ${CLIENT_THREADS} worker threads; polls in ${POLLING.order} order through ${POLLING.client} with Accept-Encoding "${POLLING.acceptEncoding ?? BROWSER_ACCEPT_ENCODING}"; chat ${CHAT_SECONDS} s; targets checked at ${largest.dancers} dancers${largest.dancers === 3000 ? '' : ' (the targets are for 3 000)'}`,
  );
  console.log(
    `  load average (1/5/15 min) at each phase: ${results.map((r) => `${r.dancers}: connect ${r.load.connect}, storm ${r.load.storm}`).join('; ')}`,
  );
  const head = [
    'figure'.padEnd(52),
    ...results.map((r) => String(r.dancers).padStart(8)),
    'target'.padStart(8),
    'verdict'.padStart(8),
    '3000/1000'.padStart(10),
    'growth'.padStart(7),
  ];
  console.log(head.join(' '));
  let failures = 0;
  for (const f of figures(results)) {
    const values = results.map((r) => f.value(r));
    const v = f.value(largest);
    const verdict = f.target === undefined ? '' : v <= f.target ? 'ok' : 'FAIL';
    if (verdict === 'FAIL') failures++;
    let ratio = '';
    let growth = '';
    if (f.growth && r1000 && r3000) {
      const q = f.value(r3000) / f.value(r1000);
      ratio = Number.isFinite(q) ? `${q.toFixed(2)}×` : '–';
      // judged as printed, to two decimals: the connect's bytes per dancer are the same at both
      // sizes but for the digits of the room's count (`{"count":999}` / `{"count":2999}`, one byte
      // in 5 000), which a ratio of 3.0005 would otherwise call super-linear
      growth = Number.isFinite(q) ? (Number(q.toFixed(2)) <= 3 ? 'ok' : 'FAIL') : '';
      if (growth === 'FAIL') failures++;
    }
    console.log(
      [
        `${f.name}${f.unit ? ` (${f.unit})` : ''}`.padEnd(52),
        ...values.map((x) => fmt(x).padStart(8)),
        (f.target === undefined ? '' : `≤ ${f.target}`).padStart(8),
        verdict.padStart(8),
        ratio.padStart(10),
        growth.padStart(7),
      ].join(' '),
    );
  }
  console.log(
    `${failures === 0 ? 'all targets met' : `${failures} target(s) missed`}${r3000 ? '' : ' (growth not judged: run 1000 and 3000)'}`,
  );
  console.log(machineVerdict(largest, roundTrip));
}

async function main(): Promise<void> {
  console.log(
    `bench:event-day ${new Date().toISOString()}: steps ${STEPS.join(', ')} dancers; load average ${load()}; logs in ${workDir}`,
  );
  const results: StepResult[] = [];
  let failed = true;
  try {
    const entry = serviceEntry(root);
    console.log(`the service: ${entry} of ${root}`);
    // before anything runs: how fast this machine passes a byte between two idle processes, and runs JavaScript
    const roundTrip = { ...(await loopbackRoundTrip()), jsonMs: jsonProbeMs() };
    console.log(`the machine before the run: ${probeText(roundTrip)}`);
    for (const dancers of STEPS) results.push(await runStep(dancers, entry));
    printTable(results, roundTrip);
    failed = false;
  } finally {
    await processes.stopAll();
    if (failed) console.error(`logs kept in ${workDir}`);
    else if (process.env.BENCH_KEEP_LOGS === '1') console.log(`logs kept in ${workDir}`);
    else rmSync(workDir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);

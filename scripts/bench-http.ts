/**
 * `npm run bench:http`: the hot read paths of the service against two ceilings (a script, not a test).
 *
 * Creates a fresh PostgreSQL database (admin URL: TEST_DATABASE_ADMIN_URL, default
 * postgresql://postgres@127.0.0.1:5432/postgres), starts the service as a real child process in
 * production mode (`node dist/server.js`, built at the start, its log to a file), seeds a weekend
 * (scripts/bench-http/seed.ts) and runs matching through the CLI. Then, loopback only:
 *   (a) bare Express 5 hello JSON, its own process (scripts/bench-http/hello-server.ts), and
 *   (a′) the same process sending the bytes of the details answer (the big body's ceiling), and
 *   (a″) those bytes gzipped (the ceiling of the details as a browser asks: gzip accepted),
 *   measured through undici, with (a) once more through undici beside it (undiciLoop says why),
 *   and (a‴) (a) with helmet()'s headers, as the service sends them (what they cost alone);
 *   (b) GET /api/events by hand with pg + jsonwebtoken, its own process
 *       (scripts/bench-http/reference-server.ts); its JSON must equal the service's (keys sorted);
 *   (c) the service's hot reads and a Socket.IO connect + join_event_room.
 * Rounds are interleaved (a, b, c…, a, b, c…) so drift on a shared machine hits every side alike.
 * Reported: req/s, p50/p99 per endpoint (medians over the rounds), ratios to (a) and (b), SQL
 * statements per request (the service's `wcs_db_queries_total` around sequential requests, and
 * "loaded": around each timed run, per answer, where concurrent reads share fences), the CPU per
 * answer of the process serving it (every thread, from /proc) and of PostgreSQL (every `postgres`
 * process) around each timed run, with the item-4 ratio by that CPU beside the one by req/s, then a
 * fixed-rate mix (300 req/s for 30 s) with p50/p99/max per endpoint. The last line is
 * `GET /api/events = X of reference` (median of the per-round ratios).
 *
 * Knobs: BENCH_ROUNDS (3), BENCH_SECONDS per run (5), BENCH_CONNECTIONS (50),
 * BENCH_RATE (300), BENCH_RATE_SECONDS (30; 0 skips the mix), BENCH_LOG_LEVEL of the service (info), BENCH_SERVICE_NODE_ARGS
 * (e.g. `--cpu-prof --cpu-prof-dir=prof`: a profile of the service, written when it stops),
 * BENCH_ACCEPT_ENCODING of the fixed-rate mix (a browser's by default; '' none),
 * BENCH_ONLY (comma-separated parts of endpoint names: only those, beside (a), (b) and GET /api/events),
 * BENCH_KEEP_LOGS=1 (keep the processes' logs, e.g. with BENCH_SERVICE_NODE_ARGS=--trace-gc),
 * BENCH_COMPARE_ROOT (another checkout with its node_modules, e.g. a `git worktree` of the commit
 * before a change: its service runs beside this one on the same database, each of its hot reads
 * measured in the same rounds, right after this checkout's, as "… (compared)"),
 * BENCH_SERVICE_BUILD=0 (the service through tsx, as `npm start` runs it, instead of each
 * checkout's build, compiled at the start as `npm run build` does: serviceEntry in
 * scripts/lib/bench-process.ts).
 * Notes and EXPLAIN output: scripts/bench-http/NOTES.md.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import jwt from 'jsonwebtoken';
import { Client } from 'pg';
import { Pool } from 'undici';
import { io as connectSocket } from 'socket.io-client';
import { freePort } from '../src/lib/embedded-postgres.js';
import { BROWSER_ACCEPT_ENCODING, runFixedRate } from './bench-http/fixed-rate.js';
import { hotReadMix, hotReadPaths, seedWeekend, WEEKEND } from './bench-http/seed.js';
import { cpuSecondsByPid, cpuSecondsOfPid, cpuSecondsSince } from './bench-event-day/machine.js';
import { benchDatabase } from './lib/bench-database.js';
import { BenchProcesses, serviceEntry, serviceNodeFlags } from './lib/bench-process.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const RATE = Number(process.env.BENCH_RATE ?? 300);
const RATE_SECONDS = Number(process.env.BENCH_RATE_SECONDS ?? 30);
const ONLY = (process.env.BENCH_ONLY ?? '').split(',').filter(Boolean);
const COMPARE_ROOT = process.env.BENCH_COMPARE_ROOT ? path.resolve(process.env.BENCH_COMPARE_ROOT) : undefined;
const KEEP_LOGS = process.env.BENCH_KEEP_LOGS === '1';
const SOCKET_WORKERS = 10;
const SQL_SAMPLES = 20;
const REFERENCE = '(b) reference GET /api/events';
const HELLO_UNDICI = '(a) hello JSON, bare Express 5 (undici)';
const HELLO_HELMET = '(a‴) hello JSON, bare Express 5 + helmet()';

const root = path.resolve(__dirname, '..');
/** the flags of `npm start` in a checkout (its heap sizes, docs/operations.md), then BENCH_SERVICE_NODE_ARGS (overriding) */
const serviceNodeArgs = (checkout: string) => [
  ...serviceNodeFlags(checkout),
  ...(process.env.BENCH_SERVICE_NODE_ARGS ?? '').split(' ').filter(Boolean),
];
const database = benchDatabase('wcs_bench_http');
const dbUrl = database.url;
const JWT_SECRET = 'bench-http-secret-that-is-at-least-32-characters';
const METRICS_TOKEN = 'bench-http-metrics-token-0123456789';
const workDir = mkdtempSync(path.join(os.tmpdir(), 'wcs-bench-http-'));

const serviceEnv: NodeJS.ProcessEnv = {
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  NODE_ENV: 'production',
  HOST: '127.0.0.1',
  DATABASE_URL: dbUrl,
  JWT_SECRET,
  METRICS_TOKEN,
  LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
  RATE_LIMIT_ENABLED: 'false',
  CSRF_ENABLED: 'false',
  MATCHING_SCHEDULER_ENABLED: 'false',
  // empty = unset, and dotenv does not fill in what is already defined
  REDIS_URL: '',
  // required in production; the benchmark sends no mail (nothing listens there)
  SMTP_HOST: '127.0.0.1',
  SMTP_PORT: '2525',
};

// ------------------------------------------------------------------------------ helpers

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0
    ? NaN
    : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
const median = (values: number[]) => {
  const s = [...values].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const processes = new BenchProcesses(root, workDir);
const start = (name: string, script: string, env: NodeJS.ProcessEnv, args: string[] = []) =>
  processes.start(name, script, env, args);
const waitForHttp = (url: string, child: ChildProcess, name: string) => processes.waitForHttp(url, child, name);
const runToEnd = (name: string, script: string, env: NodeJS.ProcessEnv, args: string[], timeoutMs: number) =>
  processes.runToEnd(name, script, env, args, timeoutMs);

/** JSON with every object's keys sorted, for comparing two answers. */
function canonical(value: unknown): string {
  const sort = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sort)
      : v && typeof v === 'object'
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, sort((v as Record<string, unknown>)[k])]),
          )
        : v;
  return JSON.stringify(sort(value));
}

async function getJson(url: string, token?: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  return { status: res.status, body: await res.json() };
}

// ------------------------------------------------------------------------------ measurements

interface Sample {
  rps: number;
  /** requests answered in the run (errors included: they cost the server too) */
  answers: number;
  p50: number;
  p99: number;
  errors: number;
  /** SQL statements per answer during the run (targets that count them) */
  sqlPerAnswer?: number;
  /**
   * CPU per answer during the run, µs: the serving process (every thread: user + system) and
   * PostgreSQL (every `postgres` process; 0 for a server that sends no SQL)
   */
  cpu?: { server: number; postgres: number };
}

async function cannon(
  url: string,
  token: string | undefined,
  seconds: number,
  headers: Record<string, string> = {},
): Promise<Sample> {
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: seconds,
    headers: token ? { ...headers, authorization: `Bearer ${token}` } : headers,
  });
  return {
    rps: result.requests.total / result.duration,
    answers: result.requests.total,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.non2xx + result.errors + result.timeouts,
  };
}

/** A run's sample from the latencies of its answers (ms), its errors and its length (s). */
function closedLoopSample(latencies: number[], errors: number, elapsed: number): Sample {
  const sorted = latencies.sort((a, b) => a - b);
  return {
    rps: latencies.length / elapsed,
    answers: latencies.length + errors,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    errors,
  };
}

/**
 * CONNECTIONS requests at a time, each sent when the last one's answer is read, through undici's
 * Pool: for answers with a binary body. autocannon (9.0.0) appends every body chunk to a string
 * (`req.body += data`, lib/pipelinedRequestsQueue.js), and decoding 38 kB of gzip as UTF-8 held
 * it at ~1 100 answers a second from any server, where undici reads 13 800 (2026-12-03).
 */
async function undiciLoop(
  url: string,
  token: string | undefined,
  seconds: number,
  headers: Record<string, string> = {},
  status = 200,
): Promise<Sample> {
  const { origin, pathname, search } = new URL(url);
  const pool = new Pool(origin, { connections: CONNECTIONS });
  const all = token ? { ...headers, authorization: `Bearer ${token}` } : headers;
  const latencies: number[] = [];
  let errors = 0;
  const started = performance.now();
  const end = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (performance.now() < end) {
        const t0 = performance.now();
        try {
          const res = await pool.request({ path: pathname + search, method: 'GET', headers: all });
          for await (const _chunk of res.body);
          if (res.statusCode === status) latencies.push(performance.now() - t0);
          else errors++;
        } catch {
          errors++;
        }
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  await pool.close();
  return closedLoopSample(latencies, errors, elapsed);
}

/**
 * Socket.IO: SOCKET_WORKERS loops of connect (handshake auth) → join_event_room ack →
 * disconnect, each worker as its own caller (the service caps sockets per user).
 */
async function socketRun(baseUrl: string, tokens: string[], slug: string, seconds: number): Promise<Sample> {
  const latencies: number[] = [];
  let errors = 0;
  const started = performance.now();
  const end = started + seconds * 1000;
  const once = (token: string) =>
    new Promise<void>((resolve) => {
      const t0 = performance.now();
      const socket = connectSocket(baseUrl, {
        transports: ['websocket'],
        auth: { token },
        forceNew: true,
        reconnection: false,
        timeout: 10_000,
      });
      const finish = (ok: boolean) => {
        socket.disconnect();
        if (ok) latencies.push(performance.now() - t0);
        else errors++;
        resolve();
      };
      socket.once('connect_error', () => finish(false));
      socket.once('connect', () => {
        socket
          .timeout(10_000)
          .emit('join_event_room', slug, (err: unknown, ack: { success?: boolean }) =>
            finish(!err && ack?.success === true),
          );
      });
    });
  await Promise.all(
    Array.from({ length: SOCKET_WORKERS }, async (_, worker) => {
      while (performance.now() < end) await once(tokens[worker % tokens.length]);
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  return closedLoopSample(latencies, errors, elapsed);
}

/** Samples of the service's Prometheus metrics (unlabelled series only). */
async function serviceMetrics(baseUrl: string, names: string[]): Promise<number[]> {
  const res = await fetch(`${baseUrl}/api/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  const lines = (await res.text()).split('\n');
  return names.map((name) => Number(lines.find((l) => l.startsWith(`${name} `))?.split(' ')[1] ?? NaN));
}

async function serviceQueryCount(baseUrl: string): Promise<number> {
  return (await serviceMetrics(baseUrl, ['wcs_db_queries_total']))[0];
}

/** The fixed-rate mix of hot reads (BENCH_RATE req/s for BENCH_RATE_SECONDS), printed per endpoint. */
async function fixedRateMix(serviceUrl: string, slug: string, tokens: string[]): Promise<void> {
  // the callers poll like the phones of a weekend
  const mix = hotReadMix(slug);
  // Where stalls come from: the service's event-loop delay over the mix (prom-client resets its
  // histogram at every scrape) and the load generator's own.
  const loopNames = ['nodejs_eventloop_lag_p99_seconds', 'nodejs_eventloop_lag_max_seconds'];
  await serviceMetrics(serviceUrl, loopNames);
  const generatorLoop = monitorEventLoopDelay({ resolution: 10 });
  generatorLoop.enable();
  const fixed = await runFixedRate(serviceUrl, mix, tokens, RATE, RATE_SECONDS, {
    acceptEncoding: process.env.BENCH_ACCEPT_ENCODING,
  });
  generatorLoop.disable();
  const [serviceLoopP99, serviceLoopMax] = (await serviceMetrics(serviceUrl, loopNames)).map((v) => v * 1000);
  console.log('');
  console.log(
    `fixed rate: ${fixed.sent} requests at ${RATE} req/s for ${RATE_SECONDS} s, ${tokens.length} callers (scheduler late by at most ${fixed.maxLateness.toFixed(1)} ms; ${fixed.retriedResets} sent again after a keep-alive reset)`,
  );
  console.log(
    `  event-loop delay during the mix: service p99 ${serviceLoopP99.toFixed(1)} ms, max ${serviceLoopMax.toFixed(1)} ms; ` +
      `load generator p99 ${(generatorLoop.percentile(99) / 1e6).toFixed(1)} ms, max ${(generatorLoop.max / 1e6).toFixed(1)} ms`,
  );
  console.log(
    `${'endpoint'.padEnd(50)} ${'count'.padStart(6)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'max ms'.padStart(7)} ${'errors'.padStart(7)}`,
  );
  for (const r of fixed.results) {
    const sorted = r.latencies.sort((a, b) => a - b);
    console.log(
      `${r.name.padEnd(50)} ${String(sorted.length).padStart(6)} ${percentile(sorted, 50).toFixed(1).padStart(7)} ${percentile(sorted, 99).toFixed(1).padStart(7)} ` +
        `${(sorted.at(-1) ?? NaN).toFixed(1).padStart(7)} ${String(r.errors).padStart(7)}`,
    );
  }
}

// ------------------------------------------------------------------------------ main

interface Target {
  name: string;
  kind: 'http' | 'socket';
  url: string;
  token?: string;
  /** headers beside the token */
  headers?: Record<string, string>;
  /** the load generator of an http target: autocannon (the default) or undiciLoop (binary bodies) */
  client?: 'undici';
  /** the answer's status expected (200; undiciLoop only) */
  status?: number;
  /** statements per request: reads a counter of the process serving it */
  queries?: () => Promise<number>;
  /** the process serving it (its CPU per answer is measured) */
  pid?: number;
}

async function main(): Promise<void> {
  const [load1] = os.loadavg();
  console.log(
    `bench:http ${new Date().toISOString()} on ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}, load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  console.log(
    `  ${ROUNDS} interleaved rounds × ${SECONDS} s per endpoint, ${CONNECTIONS} connections; fixed-rate mix ${RATE} req/s × ${RATE_SECONDS} s`,
  );
  const entry = serviceEntry(root);
  const compareEntry = COMPARE_ROOT ? serviceEntry(COMPARE_ROOT) : undefined;
  console.log(`  the service: ${entry}${COMPARE_ROOT ? `; compared: ${compareEntry} of ${COMPARE_ROOT}` : ''}`);
  await database.create();
  let failed = true;
  try {
    const [servicePort, helloPort, referencePort] = [await freePort(), await freePort(), await freePort()];
    const service = processes.start(
      'service',
      entry,
      { ...serviceEnv, PORT: String(servicePort) },
      [],
      serviceNodeArgs(root),
    );
    const serviceUrl = `http://127.0.0.1:${servicePort}`;
    await waitForHttp(`${serviceUrl}/api/health`, service, 'service');
    // the other checkout's service: started once this one has migrated the database
    let compareUrl: string | undefined;
    let comparePid: number | undefined;
    if (COMPARE_ROOT) {
      const comparePort = await freePort();
      const compared = processes.start(
        'compared',
        compareEntry!,
        { ...serviceEnv, PORT: String(comparePort) },
        [],
        serviceNodeArgs(COMPARE_ROOT),
        COMPARE_ROOT,
      );
      compareUrl = `http://127.0.0.1:${comparePort}`;
      comparePid = compared.pid;
      await waitForHttp(`${compareUrl}/api/health`, compared, 'compared');
      console.log(`  compared with the service of ${COMPARE_ROOT}`);
    }

    const seedStart = performance.now();
    const db = new Client({ connectionString: dbUrl });
    await db.connect();
    const weekend = await seedWeekend(db).finally(() => db.end());
    await runToEnd(
      'matching',
      'src/cli.ts',
      { ...serviceEnv, LOG_LEVEL: 'warn' },
      ['matching:run', weekend.bigEventSlug],
      300_000,
    );
    console.log(
      `  seeded in ${((performance.now() - seedStart) / 1000).toFixed(1)} s: ${WEEKEND.users} users, ${WEEKEND.events} events ` +
        `(one with ${WEEKEND.bigEventParticipants} participants, heats, a matching run), ` +
        `${WEEKEND.eventMessages + WEEKEND.matchMessages} chat messages, ${WEEKEND.matches} matches with messages and ratings`,
    );

    // (a′): bare Express sending the bytes of the details answer (288 kB at 1 500 participants)
    const detailsFile = path.join(workDir, 'details.json');
    const detailsAnswer = await fetch(`${serviceUrl}/api/events/${weekend.bigEventSlug}/details`, {
      headers: {
        authorization: `Bearer ${jwt.sign({ ev: true }, JWT_SECRET, { algorithm: 'HS256', subject: String(weekend.callerIds[0]), expiresIn: 3600 })}`,
      },
    });
    writeFileSync(detailsFile, Buffer.from(await detailsAnswer.arrayBuffer()));
    const hello = start('hello', 'scripts/bench-http/hello-server.ts', {
      PATH: process.env.PATH,
      NODE_ENV: 'production',
      PORT: String(helloPort),
      DETAILS_BODY_FILE: detailsFile,
    });
    const reference = start('reference', 'scripts/bench-http/reference-server.ts', {
      PATH: process.env.PATH,
      NODE_ENV: 'production',
      PORT: String(referencePort),
      DATABASE_URL: dbUrl,
      JWT_SECRET,
    });
    const helloUrl = `http://127.0.0.1:${helloPort}`;
    const referenceUrl = `http://127.0.0.1:${referencePort}`;
    await waitForHttp(`${helloUrl}/hello`, hello, 'hello');
    await waitForHttp(`${referenceUrl}/__queries`, reference, 'reference');

    const sign = (id: number) =>
      jwt.sign({ ev: true }, JWT_SECRET, { algorithm: 'HS256', subject: String(id), expiresIn: 3600 });
    const tokens = weekend.callerIds.map(sign);
    const token = tokens[0];
    const slug = weekend.bigEventSlug;

    // The comparison stays honest: (b) answers exactly what the service answers.
    const [mine, theirs] = await Promise.all([
      getJson(`${serviceUrl}/api/events`, token),
      getJson(`${referenceUrl}/api/events`, token),
    ]);
    if (mine.status !== 200 || canonical(mine.body) !== canonical(theirs.body)) {
      throw new Error(
        `the reference answer differs from the service's:\nservice   ${canonical(mine.body).slice(0, 600)}\nreference ${canonical(theirs.body).slice(0, 600)}`,
      );
    }
    console.log(
      `  reference answer equals the service's GET /api/events (${(mine.body as { count: number }).count} events, keys sorted)`,
    );

    const serviceCount = () => serviceQueryCount(serviceUrl);
    const targets: Target[] = [
      { name: '(a) hello JSON, bare Express 5', kind: 'http', url: `${helloUrl}/hello`, pid: hello.pid },
      { name: "(a′) the details' bytes, bare Express 5", kind: 'http', url: `${helloUrl}/details`, pid: hello.pid },
      { name: HELLO_HELMET, kind: 'http', url: `${helloUrl}/hello-helmet`, pid: hello.pid },
      // the gzipped details, their ceiling and (a) again, through undici (undiciLoop says why)
      { name: HELLO_UNDICI, kind: 'http', url: `${helloUrl}/hello`, client: 'undici', pid: hello.pid },
      {
        name: '(a″) the details gzipped, bare Express 5 (undici)',
        kind: 'http',
        url: `${helloUrl}/details.gz`,
        headers: { 'accept-encoding': BROWSER_ACCEPT_ENCODING },
        client: 'undici',
        pid: hello.pid,
      },
      {
        name: REFERENCE,
        kind: 'http',
        url: `${referenceUrl}/api/events`,
        token,
        queries: async () => ((await getJson(`${referenceUrl}/__queries`)).body as { queries: number }).queries,
        pid: reference.pid,
      },
      ...hotReadPaths(slug).flatMap((p): Target[] => {
        const name = `GET ${p.replace(slug, ':slug')}`;
        const own: Target = {
          name,
          kind: 'http',
          url: `${serviceUrl}${p}`,
          token,
          queries: serviceCount,
          pid: service.pid,
        };
        const mine = [own];
        // the details also as a browser asks for them: gzip accepted (src/lib/compressed-body.ts)
        if (p.endsWith('/details'))
          mine.push({
            ...own,
            name: `${name}, gzip (undici)`,
            headers: { 'accept-encoding': BROWSER_ACCEPT_ENCODING },
            client: 'undici',
          });
        // and polled as a browser polls an answer it holds: If-None-Match (set below), 304
        if (p.endsWith('/details'))
          mine.push({
            ...own,
            name: `${name}, 304 (undici)`,
            headers: { 'accept-encoding': BROWSER_ACCEPT_ENCODING },
            client: 'undici',
            status: 304,
          });
        return compareUrl
          ? mine.flatMap((t) => [
              t,
              { ...t, name: `${t.name} (compared)`, url: `${compareUrl}${p}`, queries: undefined, pid: comparePid },
            ])
          : mine;
      }),
      {
        name: 'socket connect + join_event_room',
        kind: 'socket',
        url: serviceUrl,
        token,
        queries: serviceCount,
        pid: service.pid,
      },
    ];

    if (ONLY.length > 0) {
      const kept = targets.filter(
        (t, i) =>
          i === 0 ||
          t.name === HELLO_HELMET ||
          t.name === REFERENCE ||
          t.name === 'GET /api/events' ||
          ONLY.some((o) => t.name.includes(o)),
      );
      // (a) through undici whenever a target through undici is kept: its ratio's base
      const undici = kept.some((t) => t.client === 'undici');
      targets.splice(
        0,
        targets.length,
        ...targets.filter((t) => kept.includes(t) || (undici && t.name === HELLO_UNDICI)),
      );
    }

    // Every endpoint answers 200 before anything is timed.
    for (const t of targets.filter((x) => x.kind === 'http')) {
      const res = await getJson(t.url, t.token);
      if (res.status !== 200)
        throw new Error(`${t.name} answered ${res.status}: ${JSON.stringify(res.body).slice(0, 300)}`);
    }
    // the answers' headers: (a) sends 6, the service every helmet() header besides its own
    const heads: string[] = [];
    for (const t of targets.filter((x) => x.kind === 'http' && !x.headers && x.name !== REFERENCE)) {
      const res = await fetch(t.url, { headers: t.token ? { authorization: `Bearer ${t.token}` } : {} });
      await res.arrayBuffer();
      const pairs = [...res.headers];
      heads.push(`${t.name} ${pairs.length} (${pairs.reduce((n, [k, v]) => n + k.length + v.length + 4, 0)} B)`);
    }
    console.log(`  response headers per answer: ${heads.join('; ')}`);
    for (const t of targets.filter((x) => x.status === 304)) {
      const etag = (await fetch(t.url, { headers: { authorization: `Bearer ${t.token}` } })).headers.get('etag');
      if (!etag) throw new Error(`${t.name}: no ETag`);
      t.headers = { ...t.headers, 'if-none-match': etag };
    }

    // SQL statements per request: sequential requests, nothing else running.
    const sqlPerRequest = new Map<string, number>();
    for (const t of targets) {
      if (!t.queries) continue;
      const before = await t.queries();
      for (let i = 0; i < SQL_SAMPLES; i++) {
        if (t.kind === 'http') await getJson(t.url, t.token);
        else await socketOnce(t.url, t.token!, slug);
      }
      sqlPerRequest.set(t.name, ((await t.queries()) - before) / SQL_SAMPLES);
    }

    const run = (t: Target, seconds: number) =>
      t.kind === 'socket'
        ? socketRun(t.url, tokens, slug, seconds)
        : t.client === 'undici'
          ? undiciLoop(t.url, t.token, seconds, t.headers, t.status)
          : cannon(t.url, t.token, seconds, t.headers);
    for (const t of targets) await run(t, 2); // warm-up
    const samples = new Map<string, Sample[]>(targets.map((t) => [t.name, []]));
    for (let round = 1; round <= ROUNDS; round++) {
      for (const t of targets) {
        const before = await t.queries?.();
        const { pid } = t;
        const cpuBefore =
          pid === undefined ? undefined : { server: cpuSecondsOfPid(pid), postgres: cpuSecondsByPid('postgres') };
        const sample = await run(t, SECONDS);
        if (pid !== undefined && cpuBefore && sample.answers > 0)
          sample.cpu = {
            server: ((cpuSecondsOfPid(pid) - cpuBefore.server) * 1e6) / sample.answers,
            postgres: (cpuSecondsSince('postgres', cpuBefore.postgres) * 1e6) / sample.answers,
          };
        // statements per answer under the closed loop: reads arriving together share a fence
        // (src/lib/read-cache.ts), so this is below the sequential SQL/req
        if (before !== undefined && sample.answers > 0)
          sample.sqlPerAnswer = ((await t.queries!()) - before) / sample.answers;
        samples.get(t.name)!.push(sample);
      }
      const ev = samples.get('GET /api/events')!.at(-1)!;
      const ref = samples.get(REFERENCE)!.at(-1)!;
      console.log(
        `  round ${round}: GET /api/events ${ev.rps.toFixed(0)} req/s, reference ${ref.rps.toFixed(0)} req/s (${(ev.rps / ref.rps).toFixed(2)}), load ${os.loadavg()[0].toFixed(2)}`,
      );
    }

    const helloRps = median(samples.get(targets[0].name)!.map((s) => s.rps));
    /** the medians of a target's CPU per answer (µs), when its server's was read */
    const cpuOf = (name: string) => {
      const measured = (samples.get(name) ?? []).flatMap((x) => (x.cpu ? [x.cpu] : []));
      if (measured.length === 0) return undefined;
      const server = median(measured.map((c) => c.server));
      const postgres = median(measured.map((c) => c.postgres));
      return { server, postgres, total: server + postgres };
    };
    const refRps = median(samples.get(REFERENCE)!.map((s) => s.rps));
    console.log('');
    console.log(
      `${'endpoint'.padEnd(50)} ${'req/s'.padStart(7)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'×(a)'.padStart(6)} ${'×(b)'.padStart(6)} ${'SQL/req'.padStart(8)} ${'loaded'.padStart(7)} ${'CPU µs'.padStart(7)} ${'PG µs'.padStart(6)} ${'errors'.padStart(7)}`,
    );
    for (const t of targets) {
      const s = samples.get(t.name)!;
      const rps = median(s.map((x) => x.rps));
      const sql = sqlPerRequest.get(t.name);
      const loaded = s.flatMap((x) => (x.sqlPerAnswer === undefined ? [] : [x.sqlPerAnswer]));
      const cpu = cpuOf(t.name);
      console.log(
        `${t.name.padEnd(50)} ${rps.toFixed(0).padStart(7)} ${median(s.map((x) => x.p50))
          .toFixed(1)
          .padStart(7)} ${median(s.map((x) => x.p99))
          .toFixed(1)
          .padStart(7)} ` +
          `${(rps / helloRps).toFixed(2).padStart(6)} ${(rps / refRps).toFixed(2).padStart(6)} ${(sql === undefined ? '–' : sql.toFixed(1)).padStart(8)} ${(loaded.length === 0 ? '–' : median(loaded).toFixed(2)).padStart(7)} ` +
          `${(cpu ? cpu.server.toFixed(1) : '–').padStart(7)} ${(cpu ? cpu.postgres.toFixed(1) : '–').padStart(6)} ${String(s.reduce((a, x) => a + x.errors, 0)).padStart(7)}`,
      );
    }

    // Issue 29, item 4: every authenticated hot read at ≥ 0.5 of the bare Express answer; the
    // details (a big body) also against bare Express sending the same bytes (a′), or the same
    // bytes gzipped (a″) when gzip is accepted.
    const rpsOf = (name: string) => median(samples.get(name)!.map((x) => x.rps));
    const ceilingOf = (name: string) => (samples.has(name) ? rpsOf(name) : NaN);
    const bigRps = ceilingOf("(a′) the details' bytes, bare Express 5");
    const bigGzipRps = ceilingOf('(a″) the details gzipped, bare Express 5 (undici)');
    const helloUndiciRps = ceilingOf(HELLO_UNDICI);
    console.log('');
    for (const t of targets.filter(
      (x) => x.kind === 'http' && x.name.startsWith('GET') && !x.name.includes('/health'),
    )) {
      // a target through undici against (a) through undici
      const ratio = rpsOf(t.name) / (t.client === 'undici' ? helloUndiciRps : helloRps);
      const gzip = t.name.includes(', gzip');
      const big =
        t.name.includes('/details') && t.status !== 304
          ? `, ${(rpsOf(t.name) / (gzip ? bigGzipRps : bigRps)).toFixed(2)} of (a${gzip ? '″' : '′'})`
          : '';
      // what one answer costs the machine (the server's CPU and PostgreSQL's) against (a)'s: what
      // the throughput's ratio becomes when the load generator's share of the cores is left out
      const cost = cpuOf(t.name);
      const base = cpuOf(t.client === 'undici' ? HELLO_UNDICI : targets[0].name);
      const byCpu = cost && base ? `; by CPU per answer ${(base.total / cost.total).toFixed(2)} of (a)` : '';
      console.log(
        `  ${t.name.padEnd(50)} ${ratio.toFixed(2)} of (a)${t.client === 'undici' ? ' (undici)' : ''}${big}: ${ratio >= 0.5 ? 'ok' : 'below 0.5'}${byCpu}`,
      );
    }

    if (RATE_SECONDS > 0) await fixedRateMix(serviceUrl, slug, tokens);

    const ratios = samples.get('GET /api/events')!.map((s, i) => s.rps / samples.get(REFERENCE)![i].rps);
    console.log('');
    console.log(
      `load average at the start ${load1.toFixed(2)}, at the end ${os.loadavg()[0].toFixed(2)}; service log: ${serviceEnv.LOG_LEVEL} to a file`,
    );
    console.log(`GET /api/events = ${median(ratios).toFixed(2)} of reference`);
    failed = false;
  } finally {
    await processes.stopAll();
    await database.drop().catch((err: unknown) => console.error('drop failed:', err));
    if (failed || KEEP_LOGS) console.error(`logs kept in ${workDir}`);
    else rmSync(workDir, { recursive: true, force: true });
  }
}

/** One sequential connect + join (for the statement count). */
function socketOnce(baseUrl: string, token: string, slug: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connectSocket(baseUrl, {
      transports: ['websocket'],
      auth: { token },
      forceNew: true,
      reconnection: false,
      timeout: 10_000,
    });
    socket.once('connect_error', (err) => reject(err));
    socket.once('connect', () => {
      socket.timeout(10_000).emit('join_event_room', slug, (err: unknown) => {
        socket.disconnect();
        if (err) reject(err as Error);
        // the disconnect's own bookkeeping (leaving the room, presence) settles before the next count
        else setTimeout(resolve, 20);
      });
    });
  });
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exitCode = 1;
    process.exit(1);
  },
);

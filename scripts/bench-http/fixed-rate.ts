/**
 * Open-loop load for `npm run bench:http`: requests leave at a fixed rate whatever the answers'
 * speed (an autocannon run would slow down with the server and hide its queueing), cycling
 * through weighted endpoints and callers. Latency is measured per request from its send to the
 * end of its body; the scheduler's own lateness is reported, so a busy load generator shows.
 * A request whose reused keep-alive connection was reset (the server closed it as idle while
 * the request was on its way) is sent once more on a new one, as browsers do and as Node's
 * documentation of `request.reusedSocket` advises; its latency counts from the first send.
 * Two clients (`FixedRateOptions.client`): Node's `http.request` (the default) and undici's `Pool`.
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import { mulberry32 } from '../lib/generate-event.js';

export interface RateTarget {
  name: string;
  path: string;
  weight: number;
  /** requests without a token when false */
  auth: boolean;
}

export interface RateResult {
  name: string;
  latencies: number[];
  errors: number;
  /** what the errors were: a status code or a client-side error message, with its count */
  errorKinds: Record<string, number>;
}

/** An answered request: when it was sent (ms after the start) and its latency (ms). */
export interface RateSample {
  sentAt: number;
  latency: number;
}

export interface FixedRateReport {
  results: RateResult[];
  sent: number;
  /** the largest delay between a request's planned and actual send (ms) */
  maxLateness: number;
  /** every answered request of every target, in the order they were answered */
  samples: RateSample[];
  /** requests sent again after a reset of their reused keep-alive connection */
  retriedResets: number;
}

function failed(result: RateResult, kind: string): void {
  result.errors++;
  result.errorKinds[kind] = (result.errorKinds[kind] ?? 0) + 1;
}

export interface FixedRateOptions {
  /**
   * `grouped` (the default): each cycle sends a target's requests one after the other (5 × the
   * first target, 4 × the second, ...). `shuffled`: the same share of each target in a seeded
   * random order, each caller still always on the same target. In the grouped order a target
   * always follows the same one, so it is the one that waits whenever its predecessor's answer
   * starts a garbage collection (the details' 288 kB answer before the health check:
   * docs/event-day.md, "2026-11-27 19:55-21:40 UTC").
   */
  order?: 'grouped' | 'shuffled';
  /** the shuffled order's seed */
  seed?: number;
  /**
   * The HTTP client: `http` (the default), Node's `http.request` with a keep-alive agent, or
   * `undici` (its `Pool`), which costs the load generator less per request, so that less of the
   * measured time is the generator's own (docs/event-day.md, "2026-11-28 00:00-01:30 UTC"). With
   * undici every request whose connection closes before its answer is sent once more (it does
   * not tell whether the connection was a reused one).
   */
  client?: 'http' | 'undici';
  /**
   * The `Accept-Encoding` of every request: `gzip, deflate, br` (the default, as a phone's
   * browser sends it; a large hot read then comes gzipped, src/lib/compressed-body.ts), or ''
   * for none (the answers as they are, as these benches measured before 2026-12-03).
   */
  acceptEncoding?: string;
}

/** What a browser's fetch sends (over plain HTTP). */
export const BROWSER_ACCEPT_ENCODING = 'gzip, deflate, br';

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

/**
 * Which target request `i` asks (`schedule[i % schedule.length]`), over a length that is a
 * multiple of the callers' count, so caller `i % tokens` always asks the same target.
 */
export function scheduleOf(targets: RateTarget[], callers: number, options: FixedRateOptions): RateTarget[] {
  const sequence = targets.flatMap((t) => Array.from({ length: t.weight }, () => t));
  if (options.order !== 'shuffled') return sequence;
  const length = (sequence.length * callers) / gcd(sequence.length, callers);
  const schedule = Array.from({ length }, (_, j) => sequence[j % sequence.length]);
  const rnd = mulberry32(options.seed ?? 1);
  for (let j = length - 1; j > 0; j--) {
    const k = Math.floor(rnd() * (j + 1));
    [schedule[j], schedule[k]] = [schedule[k], schedule[j]];
  }
  return schedule;
}

export async function runFixedRate(
  baseUrl: string,
  targets: RateTarget[],
  tokens: string[],
  ratePerSecond: number,
  seconds: number,
  options: FixedRateOptions = {},
): Promise<FixedRateReport> {
  const url = new URL(baseUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const sequence = scheduleOf(targets, tokens.length, options);
  const results = new Map(
    targets.map((t) => [
      t.name,
      { name: t.name, latencies: [] as number[], errors: 0, errorKinds: {} as Record<string, number> },
    ]),
  );
  const total = Math.round(ratePerSecond * seconds);
  let inFlight = 0;
  let maxLateness = 0;
  const samples: RateSample[] = [];
  let start = 0;
  let retriedResets = 0;

  const pool = options.client === 'undici' ? new Pool(url.origin, { connections: 256 }) : undefined;
  /** request `i`'s target, its result row and its headers */
  const acceptEncoding = options.acceptEncoding ?? BROWSER_ACCEPT_ENCODING;
  const requestOf = (i: number) => {
    const target = sequence[i % sequence.length];
    const headers: Record<string, string> = target.auth ? { authorization: `Bearer ${tokens[i % tokens.length]}` } : {};
    if (acceptEncoding) headers['accept-encoding'] = acceptEncoding;
    return { target, result: results.get(target.name)!, headers };
  };
  const answered = (result: RateResult, status: number | undefined, started: number) => {
    inFlight--;
    if (status !== 200) failed(result, String(status));
    else {
      const latency = performance.now() - started;
      result.latencies.push(latency);
      samples.push({ sentAt: started - start, latency });
    }
  };
  /** a request that got no answer: sent once more after a reset (`again`), else an error */
  const unanswered = (result: RateResult, err: Error & { code?: string }, again: (() => void) | undefined) => {
    inFlight--;
    if (again) {
      retriedResets++;
      again();
    } else failed(result, err.code ?? err.message);
  };

  const sendWithUndici = (i: number, started = performance.now(), retry = false) => {
    const { target, result, headers } = requestOf(i);
    inFlight++;
    // undici closes a connection before the server's keep-alive timeout; a reset is still sent once more
    const onError = (err: Error & { code?: string }) =>
      unanswered(
        result,
        err,
        (err.code === 'ECONNRESET' || err.code === 'UND_ERR_SOCKET') && !retry
          ? () => sendWithUndici(i, started, true)
          : undefined,
      );
    pool!
      .request({ path: target.path, method: 'GET', headers, headersTimeout: 10_000, bodyTimeout: 10_000 })
      .then((res) => {
        res.body.on('data', () => undefined);
        res.body.on('error', onError);
        res.body.on('end', () => answered(result, res.statusCode, started));
      }, onError);
  };

  const sendWithHttp = (i: number, started = performance.now(), retry = false) => {
    const { target, result, headers } = requestOf(i);
    inFlight++;
    const req = http.request(
      { host: url.hostname, port: url.port, path: target.path, agent, headers, timeout: 10_000 },
      (res) => {
        res.on('data', () => undefined);
        res.on('end', () => answered(result, res.statusCode, started));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (err: NodeJS.ErrnoException) =>
      unanswered(
        result,
        err,
        err.code === 'ECONNRESET' && req.reusedSocket && !retry ? () => sendWithHttp(i, started, true) : undefined,
      ),
    );
    req.end();
  };

  const send = pool ? sendWithUndici : sendWithHttp;
  start = performance.now();
  let sent = 0;
  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = performance.now();
      const due = Math.min(total, Math.floor(((now - start) * ratePerSecond) / 1000) + 1);
      for (; sent < due; sent++) {
        maxLateness = Math.max(maxLateness, now - (start + (sent * 1000) / ratePerSecond));
        send(sent);
      }
      if (sent >= total) resolve();
      else setTimeout(tick, 1);
    };
    tick();
  });
  // Let the last answers arrive (bounded: the request timeout is 10 s).
  const deadline = performance.now() + 15_000;
  while (inFlight > 0 && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  agent.destroy();
  await pool?.destroy();
  return { results: [...results.values()], sent, maxLateness, samples, retriedResets };
}

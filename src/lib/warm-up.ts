/**
 * A warm-up of the hot reads before the service listens (WARMUP_MS; docs/event-day.md "A
 * warm-up before listening"). A new process answers its first few thousand reads several times
 * slower than a warm one (code not yet optimised by V8, query plans not yet compiled, shared
 * parts of answers not yet cached): at 3 000 dancers the first seconds of polling after a start
 * missed the latency target that the same reads met in a warm process.
 *
 * The warm-up sends the hot reads (GET only, nothing is written) of real participants of the
 * busiest current event through the service's own app, on a listener of its own bound to
 * 127.0.0.1 on a free port and closed afterwards, with tokens signed in this process for two
 * minutes and never sent anywhere else. Its requests are marked (`isWarmUpRequest`): the rate
 * limits, the request log and the HTTP metrics leave them out. It stops at its time budget, or
 * at the first answer that is not 200 (logged by the caller), or when the start is aborted; a
 * warm-up that cannot run (an empty database) does nothing.
 */
import { Agent, createServer, request, type IncomingMessage } from 'node:http';
import type { Express } from 'express';
import { appMessageClasses } from './app-messages.js';
import type { AddressInfo } from 'node:net';

const warmUpRequests = new WeakSet<IncomingMessage>();

/** Whether a request is one of the warm-up's (a mark on the request object: no client can set it). */
export function isWarmUpRequest(req: IncomingMessage): boolean {
  return warmUpRequests.has(req);
}

export interface WarmUpSettings {
  /** how long the warm-up may run; 0: none */
  ms: number;
  /** the participants whose reads are sent (each one's first read of each path misses the read cache) */
  callers: number;
  /** requests in flight at once */
  concurrency: number;
  /** ends the warm-up early (a SIGTERM during the start) */
  signal?: AbortSignal;
}

/** Who the warm-up reads as: the container's events and auth services (structural, as lib does not import modules). */
export interface WarmUpSource {
  events: {
    /** the busiest current event's slug and up to `limit` of its participants' ids; undefined: none */
    warmUpCallers(limit: number): Promise<{ slug: string; userIds: number[] } | undefined>;
  };
  tokens: {
    /** a token of a user as the user is now, valid for `seconds`; undefined for an unknown user */
    signFor(userId: number, seconds: number): Promise<string | undefined>;
  };
}

export interface WarmUpReport {
  reads: number;
  ms: number;
  callers: number;
  /** the slug of the event whose participants it read as (absent when it read nothing) */
  event?: string;
  /** why it stopped before its budget: the first answer that was not 200, or a failed request */
  stoppedBy?: string;
}

/** The hot reads of a phone at an event (bench:event-day polls the same ones). */
export function warmUpPaths(slug: string): string[] {
  return [
    '/api/events',
    `/api/events/${slug}/messages`,
    '/api/dashboard',
    '/api/matches',
    `/api/events/${slug}/match-suggestions`,
    '/api/users/me',
    `/api/events/${slug}/details`,
  ];
}

/** Tokens signed for the warm-up expire after this (it runs for at most WARMUP_MS, ≤ 60 s). */
const TOKEN_SECONDS = 120;

export async function warmUp(app: Express, source: WarmUpSource, settings: WarmUpSettings): Promise<WarmUpReport> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  if (settings.ms <= 0) return { reads: 0, ms: 0, callers: 0 };
  const target = await source.events.warmUpCallers(settings.callers);
  const tokens = target
    ? (await Promise.all(target.userIds.map((id) => source.tokens.signFor(id, TOKEN_SECONDS)))).filter(
        (t): t is string => t !== undefined,
      )
    : [];
  if (!target || tokens.length === 0) return { reads: 0, ms: elapsed(), callers: 0 };

  // the requests the service's own server makes (src/http-server.ts), so the warmed code sees them
  const server = createServer(appMessageClasses(app), (req, res) => {
    warmUpRequests.add(req);
    app(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  const agent = new Agent({ keepAlive: true, maxSockets: settings.concurrency });
  const paths = warmUpPaths(target.slug);
  const deadline = started + settings.ms;
  let next = 0;
  let reads = 0;
  let stoppedBy: string | undefined;

  // every caller's reads of every path in turn (first reads: misses), then again (hits)
  const worker = async () => {
    while (!stoppedBy && !settings.signal?.aborted && performance.now() < deadline) {
      const i = next++;
      const path = paths[i % paths.length];
      const token = tokens[Math.floor(i / paths.length) % tokens.length];
      const status = await get(port, agent, path, token).catch((err: Error) => `failed (${err.message})`);
      if (status !== 200) stoppedBy ??= `GET ${path} answered ${status}`;
      else reads++;
    }
  };
  try {
    await Promise.all(Array.from({ length: settings.concurrency }, worker));
  } finally {
    agent.destroy();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  return { reads, ms: elapsed(), callers: tokens.length, event: target.slug, ...(stoppedBy ? { stoppedBy } : {}) };
}

function get(port: number, agent: Agent, path: string, token: string): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, agent, headers: { authorization: `Bearer ${token}` }, timeout: 10_000 },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}

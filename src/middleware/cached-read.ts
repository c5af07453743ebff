import type { IncomingMessage } from 'node:http';
import type { Request, RequestHandler, Response, Router } from 'express';
import { bearerToken, type AuthUser, type TokenAuthenticator } from '../lib/auth.js';
import { COMPRESSED_MIN_BYTES, encodedBody } from '../lib/compressed-body.js';
import type { ReadCache } from '../lib/read-cache.js';
import { pathEnds } from '../lib/route-index.js';

/**
 * A hot read's answer kept per caller and URL (src/lib/read-cache.ts: exact, dropped when any
 * of `tables` changes): `router.get(path, requireAuth, validate(…), cachedRead([...tables]), handler)`.
 * `tables` must name every table the handler's answer is read from ("User" for any user's
 * columns); tests/performance/hot-reads-fresh.test.ts writes each kind of change and reads again.
 * Identical answers of several callers (same type and ETag) share one body, weighed once.
 * Only 200 answers of GET are kept; the body is sent as it was, with its ETag (a poller that sends
 * If-None-Match gets 304 as before), a large one gzipped once for the callers that accept it
 * (src/lib/compressed-body.ts). Without a usable cache the handler runs as always.
 *
 * The hot lane (createHotLane) serves these answers without the router: a route behind
 * cachedRead may only have requireAuth and validate (pure in the URL) before it
 * (tests/performance/hot-lane.test.ts checks every route).
 */
export type CachedRead = (tables: readonly string[]) => RequestHandler;

/** Marks the middleware cachedRead returns (tests/performance/hot-lane.test.ts finds the routes by it). */
export const CACHED_READ = Symbol('cachedRead');

interface CachedBody {
  /** the body as sent: encoded once, not at every hit */
  body: Buffer;
  type: string;
  etag: string | undefined;
  /** the path of the route that answered (`/events/:slug/details`): the lane's metrics label */
  route: string;
}

/** An answer's key: per caller and URL as it arrived (its query included). */
const answerKey = (userId: number, url: string) => `http ${userId} ${url}`;

function sendHit(req: Request, res: Response, hit: CachedBody): void {
  res.status(200).set('Content-Type', hit.type);
  if (hit.etag) res.set('ETag', hit.etag);
  res.send(encodedBody(req, res, hit.body));
}

/** What an entry weighs beside its body (its key, headers and bookkeeping), roughly. */
const ENTRY_OVERHEAD = 256;

export function createCachedRead(cache: ReadCache | undefined): CachedRead {
  return (tables) => {
    const middleware: RequestHandler = (req, res, next) => cachedRead(cache, tables, req, res, next);
    return Object.assign(middleware, { [CACHED_READ]: true });
  };
}

async function cachedRead(
  cache: ReadCache | undefined,
  tables: readonly string[],
  req: Request,
  res: Response,
  next: (err?: unknown) => void,
): Promise<void> {
  if (!cache || req.method !== 'GET' || !req.user || !(await cache.freshFor(res))) return next();
  const key = answerKey(req.user.id, req.originalUrl);
  // the lane looked this answer up for this request already (after the same fence)
  const hit = res.locals.laneMissed === key ? undefined : cache.get<CachedBody>(key);
  if (hit) return sendHit(req, res, hit);
  const stamp = cache.stamp();
  if (!stamp) return next();
  res.locals.freshReads = cache;
  const send = res.send;
  res.send = function (this: Response, body?: unknown) {
    res.send = send;
    // a Buffer body is kept only with the ETag its handler set (sendData in src/lib/http.ts); a string is hashed as Express would
    if (res.statusCode === 200 && (typeof body === 'string' || (Buffer.isBuffer(body) && res.get('ETag')))) {
      const etagOf = req.app.get('etag fn') as ((body: string, encoding: string) => string) | undefined;
      const etag = Buffer.isBuffer(body) ? (res.get('ETag') as string | undefined) : etagOf?.(body, 'utf8');
      // set before send, so that Express does not hash the body again
      if (etag) res.set('ETag', etag);
      // as Express sends a string body: with its charset
      const declared = String(res.get('Content-Type') ?? 'application/json');
      const type = /charset=/i.test(declared) ? declared : `${declared}; charset=utf-8`;
      // identical answers (same type and ETag, i.e. the same bytes) are held once for every caller
      const shareId = etag ? `${type} ${etag}` : undefined;
      const held = shareId ? cache.shared<Buffer>(shareId) : undefined;
      const bytes = held ?? (Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8'));
      const entry = { body: bytes, type, etag, route: String(req.route?.path) } satisfies CachedBody;
      if (shareId)
        cache.set(key, entry, ENTRY_OVERHEAD, tables, stamp, { id: shareId, value: bytes, weight: bytes.length });
      else cache.set(key, entry, bytes.length, tables, stamp);
      // a large body goes out as a hit's would (its Vary, its gzip copy if another caller's
      // identical answer made one); only a body sent again is compressed, this one if it is held already
      if (bytes.length >= COMPRESSED_MIN_BYTES) {
        res.set('Content-Type', type);
        return send.call(this, encodedBody(req, res, bytes, held !== undefined));
      }
    }
    return send.call(this, body);
  };
  next();
}

export interface HotLane {
  /** the lane for these routers (mounted where they are): it looks only at URLs one of their cachedRead routes can match */
  middleware(routers: readonly Router[]): RequestHandler;
  /** answers sent by the lane (tests, benchmarks) */
  stats(): { answered: number };
}

/** The routes of `routers` with a cachedRead: their paths and the middleware before it (by name). */
export function cachedRoutes(routers: readonly Router[]): { path: string; before: string[] }[] {
  type Layer = { route?: { path: unknown; stack: { handle: { name: string; [CACHED_READ]?: true } }[] } };
  return routers.flatMap((router) =>
    (router.stack as Layer[]).flatMap((layer) => {
      const stack = layer.route?.stack ?? [];
      const at = stack.findIndex((l) => l.handle[CACHED_READ]);
      if (at === -1) return [];
      if (typeof layer.route!.path !== 'string') throw new Error('a cachedRead route has one path');
      return [{ path: layer.route!.path, before: stack.slice(0, at).map((l) => l.handle.name) }];
    }),
  );
}

/**
 * The answers of cachedRead served before the router (issue 29, item 4): a GET without a body,
 * with a Bearer token whose user the read cache holds (after the request's fence, as
 * requireAuth takes it), and an answer held for that user and URL, is answered from it once the
 * general rate limit counted it. Install it after the middleware every request passes (metrics,
 * request log, security headers, CORS) and before the body parser.
 *
 * The answer is the one the router would give: the held answer exists because this URL went
 * through the whole chain for this user and got it (the input guard, the routers, requireAuth,
 * validate: all depend only on the URL and the session), the session is checked as requireAuth
 * checks it, and the answer is valid as cachedRead's. Skipping the rest of the chain (the JSON
 * and cookie parsers, CSRF, which GET skips, and the walk through the routers) answered 11-32 %
 * more such reads a second (docs/benchmarks.md, 2026-12-02 16:28 UTC). Anything else, or a miss,
 * goes on to the router untouched: nothing was counted or answered yet. A rate-limited request
 * is refused as on the router (429).
 */
export function createHotLane(deps: {
  cache: ReadCache | undefined;
  tokens: TokenAuthenticator;
  limiter: RequestHandler;
}): HotLane {
  const { cache, tokens, limiter } = deps;
  let answered = 0;
  const stats = () => ({ answered });
  if (!cache) return { middleware: () => (_req, _res, next) => next(), stats };
  const middleware = (routers: readonly Router[]): RequestHandler => {
    // the first and last segments of every cachedRead route: other URLs (a health probe, a
    // public page) never wait for a fence here
    const ends = new Set(
      cachedRoutes(routers).map(({ path }) => {
        const { first, last } = pathEnds(path);
        return `${first}/${last}`;
      }),
    );
    return async (req, res, next) => {
      if (req.method !== 'GET' || hasBody(req)) return next();
      const { first, last } = pathEnds(req.url);
      if (!ends.has(`${first}/${last}`)) return next();
      return lane(req, res, next);
    };
  };
  const lane = async (req: Request, res: Response, next: (err?: unknown) => void): Promise<void> => {
    const token = bearerToken(req.headers.authorization);
    if (!token || !(await cache.freshFor(res))) return next();
    // the session checked as requireAuth checks a read's, once: requireAuth takes the outcome
    // (a refusal is answered there, after the rate limit and the input guard, as without the lane)
    let user: AuthUser;
    try {
      user = await tokens.authenticate(token, cache);
    } catch (error) {
      res.locals.laneAuth = { error } satisfies LaneAuth;
      return next();
    }
    res.locals.laneAuth = { user } satisfies LaneAuth;
    const key = answerKey(user.id, req.originalUrl);
    const hit = cache.get<CachedBody>(key);
    if (!hit) {
      res.locals.laneMissed = key;
      return next();
    }
    req.user = user;
    await limiter(req, res, (err?: unknown) => {
      if (err !== undefined) return next(err);
      res.locals.laneRoute = hit.route;
      answered++;
      sendHit(req, res, hit);
    });
  };
  return { middleware, stats };
}

/** The lane's session check of a request, for requireAuth (src/middleware/auth.ts). */
export type LaneAuth = { user: AuthUser } | { error: unknown };

/** The lane's session check of this request, if it made one. */
export function laneAuth(res: Response): LaneAuth | undefined {
  return res.locals.laneAuth as LaneAuth | undefined;
}

/** Whether a request has a body the JSON parser would read (`Content-Length: 0` is none). */
function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * The read cache for a handler behind cachedRead, once this request's fence is back (its
 * `readThrough` shares caller-independent parts of answers); undefined when the answer must be
 * read from the database (no usable cache, not a GET).
 */
export function freshReads(res: Response): ReadCache | undefined {
  return res.locals.freshReads as ReadCache | undefined;
}

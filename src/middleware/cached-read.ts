import type { RequestHandler, Response } from 'express';
import type { ReadCache } from '../lib/read-cache.js';

/**
 * A hot read's answer kept per caller and URL (src/lib/read-cache.ts: exact, dropped when any
 * of `tables` changes): `router.get(path, requireAuth, validate(…), cachedRead([...tables]), handler)`.
 * `tables` must name every table the handler's answer is read from ("User" for any user's
 * columns); tests/performance/hot-reads-fresh.test.ts writes each kind of change and reads again.
 * Identical answers of several callers (same type and ETag) share one body, weighed once.
 * Only 200 answers of GET are kept; the body is sent as it was, with its ETag (a poller that sends
 * If-None-Match gets 304 as before). Without a usable cache the handler runs as always.
 */
export type CachedRead = (tables: readonly string[]) => RequestHandler;

interface CachedBody {
  /** the body as sent: encoded once, not at every hit */
  body: Buffer;
  type: string;
  etag: string | undefined;
}

/** What an entry weighs beside its body (its key, headers and bookkeeping), roughly. */
const ENTRY_OVERHEAD = 256;

export function createCachedRead(cache: ReadCache | undefined): CachedRead {
  return (tables) => async (req, res, next) => {
    if (!cache || req.method !== 'GET' || !req.user || !(await cache.freshFor(res))) return next();
    const key = `http ${req.user.id} ${req.originalUrl}`;
    const hit = cache.get<CachedBody>(key);
    if (hit) {
      res.status(200).set('Content-Type', hit.type);
      if (hit.etag) res.set('ETag', hit.etag);
      res.send(hit.body);
      return;
    }
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
        const bytes =
          (shareId && cache.shared<Buffer>(shareId)) || (Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8'));
        const entry = { body: bytes, type, etag } satisfies CachedBody;
        if (shareId)
          cache.set(key, entry, ENTRY_OVERHEAD, tables, stamp, { id: shareId, value: bytes, weight: bytes.length });
        else cache.set(key, entry, bytes.length, tables, stamp);
      }
      return send.call(this, body);
    };
    next();
  };
}

/**
 * The read cache for a handler behind cachedRead, once this request's fence is back (its
 * `readThrough` shares caller-independent parts of answers); undefined when the answer must be
 * read from the database (no usable cache, not a GET).
 */
export function freshReads(res: Response): ReadCache | undefined {
  return res.locals.freshReads as ReadCache | undefined;
}

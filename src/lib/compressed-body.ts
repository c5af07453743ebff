import type { Request, Response } from 'express';
import { constants, gzip } from 'node:zlib';

/**
 * gzip copies of the large bodies the read cache holds (src/middleware/cached-read.ts), for the
 * callers that accept gzip (every browser does). A held body is one Buffer shared by every caller
 * with the same answer, so it is compressed once, in zlib's thread pool, and the copy lives as long
 * as the body: the details of a big event (315 kB at 1 500 participants) become 38 kB, 1.2 ms of
 * one compression against ~8 times fewer bytes written at every poll (docs/benchmarks.md).
 * Until the copy is ready the body goes out as it is. The ETag stays the body's: it is weak, and
 * both encodings carry the same JSON.
 */
export const COMPRESSED_MIN_BYTES = 8 * 1024;

/** by body: its gzip copy, or null while it is being made (or could not be) */
const copies = new WeakMap<Buffer, Buffer | null>();

/** The body's gzip copy if it is ready; the first call with `start` starts making it. */
function gzipCopy(body: Buffer, start: boolean): Buffer | undefined {
  const known = copies.get(body);
  if (known !== undefined || !start) return known ?? undefined;
  copies.set(body, null);
  // the fastest level: 2 % larger than the default level at a third of its time
  gzip(body, { level: constants.Z_BEST_SPEED }, (error, copy) => {
    if (!error) copies.set(body, copy);
  });
  return undefined;
}

/**
 * The bytes to send for a held body: its gzip copy (with `Content-Encoding: gzip`) when it is
 * large, the caller accepts gzip and the copy is ready; the body itself otherwise. A large body
 * is answered with `Vary: Accept-Encoding` in both encodings. `compress` false: a body sent for
 * the first time, which may never be sent again (one caller's answer, replaced by the next
 * write), is not compressed for it.
 */
export function encodedBody(req: Request, res: Response, body: Buffer, compress = true): Buffer {
  if (body.length < COMPRESSED_MIN_BYTES) return body;
  res.vary('Accept-Encoding');
  if (req.acceptsEncodings('gzip') !== 'gzip') return body;
  const copy = gzipCopy(body, compress);
  if (!copy) return body;
  res.set('Content-Encoding', 'gzip');
  return copy;
}

import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { stringify } from 'csv-stringify';
import type { Response } from 'express';
import { RenderedJson, RenderedList } from './sql.js';

/**
 * Response envelope (OpenAPI `components.schemas`): `{ success: true, data }`, lists add
 * `count`. A `RenderedJson` inside `data` (a large list PostgreSQL already rendered) is spliced
 * into the body as it is: as its bytes, encoded once for every answer that holds the same
 * `RenderedJson` (RenderedJson.encoded), and the answer's ETag is derived from the small parts
 * and the rendered parts' digests, so a caller's answer is not encoded or hashed whole again.
 */
export function sendData(res: Response, data: unknown, status = 200): void {
  sendEnvelope(res, { success: true, data }, status);
}

/** The envelope as JSON, with the RenderedJson parts of its `data` spliced in as their bytes. */
function sendEnvelope(
  res: Response,
  envelope: { success: true; data: unknown; [key: string]: unknown },
  status: number,
): void {
  if (!hasRenderedJson(envelope.data)) {
    res.status(status).json(envelope);
    return;
  }
  const rendered: RenderedJson<unknown>[] = [];
  const text = JSON.stringify(envelope, (_key, value: unknown) =>
    value instanceof RenderedJson ? `${RENDERED_MARK}${rendered.push(value) - 1}${RENDERED_MARK}` : value,
  );
  // split with a capturing group: the texts between placeholders at even indexes, the rendered parts' indexes at odd ones
  const pieces = text.split(RENDERED_PLACEHOLDER);
  const parts = pieces.map((piece, i) => (i % 2 ? rendered[Number(piece)].encoded() : { bytes: Buffer.from(piece) }));
  const hash = createHash('sha1');
  let length = 0;
  for (const part of parts) {
    hash.update('digest' in part ? `\u0000${part.digest}\u0000` : part.bytes);
    length += part.bytes.length;
  }
  // weak, as Express's own ETags: W/"<length in hex>-<27 characters of a SHA-1>"
  const etag = `W/"${length.toString(16)}-${hash.digest('base64').slice(0, 27)}"`;
  res.status(status).type('json').set('ETag', etag).send(assembled(etag, parts));
}

/**
 * The last large bodies put together, by ETag (the same ETag is the same bytes: the read cache
 * shares bodies on it too). Many callers' identical answers (every participant's details of a
 * big event: ~600 KB at 3 000 participants) are then copied into one body once, not once per
 * caller: at 600 first reads a second, those copies and their garbage were ~5 % of the
 * service's time (docs/event-day.md). Small bodies are not kept: copying them is cheap.
 */
const recentBodies = new Map<string, Buffer>();
const RECENT_BODIES = 8;
const RECENT_BODY_MIN_BYTES = 64 * 1024;

function assembled(etag: string, parts: { bytes: Buffer }[]): Buffer {
  const known = recentBodies.get(etag);
  if (known) return known;
  const body = Buffer.concat(parts.map((part) => part.bytes));
  if (body.length >= RECENT_BODY_MIN_BYTES) {
    if (recentBodies.size >= RECENT_BODIES) recentBodies.delete(recentBodies.keys().next().value!);
    recentBodies.set(etag, body);
  }
  return body;
}

/** JSON.stringify writes the mark as the escape `\u0000`; PostgreSQL text never holds a NUL, so no other string of a body looks like a placeholder. */
const RENDERED_MARK = '\u0000';
const RENDERED_PLACEHOLDER = /"\\u0000(\d+)\\u0000"/;

/** Whether a RenderedJson sits in the first two levels of `data` (where services put them). */
function hasRenderedJson(data: unknown): boolean {
  if (data instanceof RenderedJson) return true;
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return false;
  return Object.values(data).some((v) => v instanceof RenderedJson);
}

export interface Pagination {
  page: number;
  limit: number;
  total: number;
  totalPages: number;
}

/** A list: `{ success: true, count, data, ...extra }`; `data` may be a RenderedList (its text spliced in). */
export function sendList(
  res: Response,
  data: unknown[] | RenderedList<unknown>,
  extra: { pagination?: Pagination; [key: string]: unknown } = {},
  status = 200,
): void {
  const count = data instanceof RenderedList ? data.count : data.length;
  sendEnvelope(res, { success: true, count, data, ...extra }, status);
}

export function sendMessage(res: Response, message: string, status = 200): void {
  res.status(status).json({ success: true, message });
}

export function pagination(page: number, limit: number, total: number): Pagination {
  return { page, limit, total, totalPages: Math.max(1, Math.ceil(total / limit)) };
}

/** A confirmation: the text both as `message` and in `data` (clients read either), with extra data fields. */
export function sendConfirmation(
  res: Response,
  message: string,
  extra: Record<string, unknown> = {},
  status = 200,
): void {
  res.status(status).json({ success: true, message, data: { message, ...extra } });
}

/** A cursor-paged list: `{ success: true, data, hasMore }` (chat histories). */
export function sendPage(res: Response, data: unknown[], hasMore: boolean): void {
  res.json({ success: true, data, hasMore });
}

/** A private, never cached file body (e.g. the check-in QR code). */
export function sendFile(res: Response, file: { contentType: string; body: string | Buffer }): void {
  res.set('Cache-Control', 'private, no-store').type(file.contentType).send(file.body);
}

/** A CSV download: records are produced lazily (e.g. paged from the database) and never held whole. */
export interface CsvFile<R extends Record<string, string>> {
  filename: string;
  columns: readonly { key: keyof R & string; header: string }[];
  records: AsyncIterable<R>;
}

/** C0 and C1 control characters (U+0000-U+001F, U+007F-U+009F): CR, LF and TAB included. */
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/g;

/**
 * A cell as written: every control character becomes a space (a line break can never start a
 * new record or a formula), and a value starting with TAB or CR keeps the leading `'` that
 * csv-stringify's formula escaping gives =, +, - and @.
 */
function safeCell(value: string): string {
  const cleaned = value.replace(CONTROL_CHARACTERS, ' ');
  return /^[\t\r]/.test(value) ? `'${cleaned}` : cleaned;
}

/**
 * Streams RFC 4180 CSV (CRLF line ends, every field quoted) as an attachment named `filename`.
 * A UTF-8 byte order mark lets spreadsheet programs read non-ASCII names; control characters
 * in a value (a name stored before the input check) are written as spaces, and cells starting
 * with =, +, -, @, TAB or CR are prefixed with a quote so they are never run as formulas, also
 * by readers that end records at a bare CR or LF (docs/security-hardening.md).
 */
export async function sendCsv<R extends Record<string, string>>(res: Response, file: CsvFile<R>): Promise<void> {
  res.status(200).attachment(file.filename).type('text/csv; charset=utf-8');
  const csv = stringify({
    header: true,
    columns: file.columns.map((c) => ({ key: c.key, header: c.header })),
    bom: true,
    record_delimiter: 'windows',
    quoted: true,
    quoted_empty: true,
    cast: { string: safeCell },
    escape_formulas: true,
  });
  await pipeline(Readable.from(file.records), csv, res);
}

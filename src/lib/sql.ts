/**
 * Plain SQL for the hot read paths: a statement goes straight to the pg pool that Prisma uses
 * (or to the embedded PGlite), past Prisma's query engine, which costs the Node process more
 * than twice the CPU of the query itself on these reads (scripts/bench-http/NOTES.md). Reads
 * only: writes and transactions stay with Prisma.
 *
 * Rows come back with the driver's types: timestamptz → Date, int4 → number, boolean, text,
 * json → parsed value. So cast `count(*)` to int and `avg()` to float8 in the SQL, and turn
 * timestamps read out of json back into Dates (see `toDate`).
 */
import { createHash } from 'node:crypto';

export interface SqlStatement {
  /** PostgreSQL prepares a named statement once per connection and reuses its plan */
  readonly name: string;
  readonly text: string;
  /** a read of one caller's rows that callers arriving together make as one statement (see `sql`) */
  readonly perCaller?: PerCallerBatch;
}

/** The form of a per-caller statement that reads many callers at once (`CallerBatches`, src/lib/caller-batches.ts). */
export interface PerCallerBatch {
  /** the caller's parameter, counted from 0 (`$1` is 0) */
  readonly param: number;
  /** the same statement over `wcs_callers($n::int[])`: the caller of each row in column "batchCaller" */
  readonly statement: SqlStatement;
}

export interface SqlReader {
  rows<T>(statement: SqlStatement, params: readonly unknown[]): Promise<T[]>;
}

/**
 * A named read statement; names are unique per process (one per constant).
 *
 * `perCaller: n` marks a hot read of one caller's rows, the caller's id being `$n` (an int):
 * the reader of src/lib/caller-batches.ts sends the reads of that statement arriving together
 * (the same other parameters, different callers) as one statement over the callers' ids,
 * instead of one each, so a burst of first reads (every phone after a restart) costs a handful
 * of round trips. Each caller's rows are the statement's, run for that caller as a lateral
 * subquery; SQL does not promise their order across the batch, so mark only statements of one
 * row per caller, or whose rows' order does not matter (the events list's participations).
 * The callers come from `wcs_callers` (migration 20261127120000_caller_batches_plan), which
 * PostgreSQL estimates as one row, so that it plans the batched statement once per connection
 * (its generic plan) instead of at every execution.
 */
export function sql(name: string, text: string, options?: { perCaller: number }): SqlStatement {
  if (!options) return { name, text };
  const n = options.perCaller;
  // `$n` itself, not `$n0`…: the caller becomes the lateral's key; the array takes its place
  const caller = new RegExp(`\\$${n}(?!\\d)`, 'g');
  if (!caller.test(text)) throw new Error(`statement ${name} does not use its caller $${n}`);
  const batched = sql(
    `${name}_callers`,
    `SELECT batch_callers.id AS "batchCaller", batch_rows.*
     FROM wcs_callers($${n}::int[]) AS batch_callers(id)
     CROSS JOIN LATERAL (${text.replace(caller, 'batch_callers.id')}) AS batch_rows`,
  );
  return { name, text, perCaller: { param: n - 1, statement: batched } };
}

/** A timestamp that json_build_object/json_agg rendered as text, as the Date a column would give. */
export function toDate(value: string): Date;
export function toDate(value: string | null): Date | null;
export function toDate(value: string | null): Date | null {
  return value === null ? null : new Date(value);
}

/**
 * A JSON value PostgreSQL rendered as text (`json_agg(…)::text`), for large lists: it reaches
 * the response as is (`sendData` in src/lib/http.ts splices it in), never parsed and
 * serialised again in the service. `T` is the value it stands for. Timestamps in it must be
 * rendered like `Date.toJSON` (`isoTimestamp`).
 */
export class RenderedJson<T> {
  declare readonly value?: T;
  /** the text until it is encoded, then the bytes alone: one copy is held, not two */
  private held: string | { bytes: Buffer; digest: string };
  constructor(text: string) {
    this.held = text;
  }

  get text(): string {
    return typeof this.held === 'string' ? this.held : this.held.bytes.toString('utf8');
  }

  /** what it holds in memory (bytes, roughly): for the read cache's weights */
  get size(): number {
    return typeof this.held === 'string' ? this.held.length : this.held.bytes.length;
  }

  /**
   * The text as UTF-8 bytes and their SHA-1 (base64), computed at the first call and kept
   * instead of the text: a rendered part shared by many callers' answers (the 3 000
   * participants of an event's details, ~600 KB) is encoded and hashed once, not at every
   * caller's read (src/lib/http.ts).
   */
  encoded(): { bytes: Buffer; digest: string } {
    if (typeof this.held === 'string') {
      const bytes = Buffer.from(this.held, 'utf8');
      this.held = { bytes, digest: createHash('sha1').update(bytes).digest('base64') };
    }
    return this.held;
  }

  /** The value itself (tests, socket payloads). */
  parse(): T {
    return JSON.parse(this.text) as T;
  }
}

/**
 * A list as JSON text with its length, put together from rows encoded once (`JSON.stringify`
 * of each row, kept by the service while the rows are): `sendList` sends `count` and splices the
 * text as a RenderedJson. For lists whose rows are the same for every caller but for a few
 * (the event list: every event, the caller's own participations first), so that a caller's
 * answer is not serialised whole at each caller's first read.
 */
export class RenderedList<T> extends RenderedJson<T[]> {
  readonly count: number;
  constructor(rowTexts: readonly string[]) {
    super(`[${rowTexts.join(',')}]`);
    this.count = rowTexts.length;
  }
}

/** SQL rendering a timestamptz exactly like `Date.prototype.toJSON` (UTC, milliseconds, `Z`). */
export const isoTimestamp = (column: string) =>
  `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

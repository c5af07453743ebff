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
}

export interface SqlReader {
  rows<T>(statement: SqlStatement, params: readonly unknown[]): Promise<T[]>;
}

/** A named read statement; names are unique per process (one per constant). */
export function sql(name: string, text: string): SqlStatement {
  return { name, text };
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

/** SQL rendering a timestamptz exactly like `Date.prototype.toJSON` (UTC, milliseconds, `Z`). */
export const isoTimestamp = (column: string) =>
  `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

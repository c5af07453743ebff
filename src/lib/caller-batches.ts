/**
 * The SQL reader of the hot reads with per-caller statements batched (`sql(name, text,
 * { perCaller })` in src/lib/sql.ts): the reads of one such statement arriving together, with
 * the same other parameters, go to PostgreSQL as one statement over the callers' ids
 * (BatchedReads, as the session checks of src/lib/auth.ts). After a restart every phone's first
 * read of each endpoint misses the read cache, 600 per second at 3 000 dancers, and each of
 * those reads was a round trip of its own (docs/event-day.md).
 *
 * Never a cache: a read is always answered by a statement sent after it was asked for, so a
 * write committed before it is seen. Under no load a read is one statement, as before; other
 * statements pass through.
 */
import { BatchedReads } from './batched-reads.js';
import type { PerCallerBatch, SqlReader, SqlStatement } from './sql.js';

type Row = Record<string, unknown> & { batchCaller?: number };

export class CallerBatches implements SqlReader {
  /** one batcher per per-caller statement, made at its first read */
  private readonly batchers = new Map<string, BatchedReads<string, Row[]>>();

  constructor(private readonly reader: SqlReader) {}

  rows<T>(statement: SqlStatement, params: readonly unknown[]): Promise<T[]> {
    const batch = statement.perCaller;
    if (!batch) return this.reader.rows<T>(statement, params);
    // the key names the caller and the other parameters (JSON values: ids, slugs, page sizes);
    // reads of equal keys share their rows
    return this.batcherOf(statement.name, batch)
      .load(JSON.stringify(params))
      .then((rows) => (rows ?? []) as T[]);
  }

  private batcherOf(name: string, batch: PerCallerBatch): BatchedReads<string, Row[]> {
    let batcher = this.batchers.get(name);
    if (!batcher) {
      batcher = new BatchedReads((keys) => this.readBatch(batch, keys));
      this.batchers.set(name, batcher);
    }
    return batcher;
  }

  /** One statement per set of other parameters (callers of one slug, say), run together. */
  private async readBatch(batch: PerCallerBatch, keys: string[]): Promise<Map<string, Row[]>> {
    const groups = new Map<string, { params: unknown[]; callers: Map<number, string> }>();
    for (const key of keys) {
      const params = JSON.parse(key) as unknown[];
      // as PostgreSQL answers it (an int), whatever form the caller's id was given in
      const caller = Number(params[batch.param]);
      params[batch.param] = null;
      const others = JSON.stringify(params);
      let group = groups.get(others);
      if (!group) groups.set(others, (group = { params, callers: new Map() }));
      group.callers.set(caller, key);
    }
    const found = new Map<string, Row[]>();
    await Promise.all(
      [...groups.values()].map(async ({ params, callers }) => {
        const values = params.slice();
        values[batch.param] = [...callers.keys()];
        for (const { batchCaller, ...row } of await this.reader.rows<Row>(batch.statement, values)) {
          const key = callers.get(batchCaller!)!;
          const rows = found.get(key);
          if (rows) rows.push(row);
          else found.set(key, [row]);
        }
      }),
    );
    return found;
  }
}

import { PrismaPg } from '@prisma/adapter-pg';
import { Client, Pool } from 'pg';
import type { DatabasePoolStats } from './metrics.js';
import type { SqlReader } from './sql.js';

/**
 * The pg pool behind Prisma, built here so that its counters can be read for the metrics.
 * Given a connection string, @prisma/adapter-pg 7.10 builds a pool of its own that nothing
 * outside reaches (PrismaClient does not expose its adapter; the adapter's underlyingDriver()
 * exists only on the connection it makes internally), so we pass it our pool instead.
 * `disposeExternalPool` keeps today's lifecycle: `prisma.$disconnect()` ends the pool. (A query
 * after that makes the adapter build a fresh internal pool, which these counters no longer see.)
 * The same pool serves the plain SQL reads of src/lib/sql.ts, so they share its bounds.
 *
 * Every statement sent on a pool connection is counted (`wcs_db_queries_total`; BEGIN and COMMIT
 * included): `npm run bench:http` reads it to report SQL round trips per request.
 */
export interface PoolSettings {
  /** most connections open at once (pg's `max`) */
  size: number;
  /**
   * How long a query waits for a free connection (pg's `connectionTimeoutMillis`, which also
   * bounds opening one). Past it pg rejects with "timeout exceeded when trying to connect",
   * which src/lib/prisma-errors.ts reads as "database unavailable": 503 with Retry-After.
   */
  timeoutMs: number;
  /** most queries waiting for a connection; one more is refused at once (503) instead of queueing */
  queueSize: number;
  /**
   * connections kept open however long they are idle (pg's `min`; default 0), opened by `warm`
   * before the service listens: the first burst of reads after a quiet spell or a start then
   * finds them open (a new PostgreSQL connection is a process to fork and caches to fill)
   */
  min?: number;
  /** how long a connection above `min` stays open unused (pg's `idleTimeoutMillis`; default 10 000, 0: never closed) */
  idleMs?: number;
}

/** The refusal of a full wait queue; src/lib/prisma-errors.ts reads it as "database unavailable". */
export const POOL_QUEUE_FULL = 'database pool queue is full';

/**
 * Bounds pg's wait queue (it has no such option): with every connection busy and `queueSize`
 * queries already waiting, `connect` fails at once. pg's own `query` and Prisma's transactions
 * both go through `pool.connect`.
 */
function boundQueue(pool: Pool, settings: PoolSettings): void {
  const connect = pool.connect.bind(pool) as (cb?: (err: Error | undefined, ...rest: unknown[]) => void) => unknown;
  const full = () =>
    pool.idleCount === 0 && pool.totalCount >= settings.size && pool.waitingCount >= settings.queueSize;
  (pool as unknown as { connect: typeof connect }).connect = (cb) => {
    if (!full()) return connect(cb);
    const err = new Error(POOL_QUEUE_FULL);
    if (!cb) return Promise.reject(err);
    process.nextTick(() => cb(err));
    return undefined;
  };
}

export function createPgAdapter(
  connectionString: string,
  settings: PoolSettings = { size: 10, timeoutMs: 5000, queueSize: 1000 },
  onIdleError: (err: Error) => void = () => undefined,
): {
  adapter: PrismaPg;
  reader: SqlReader;
  stats: () => DatabasePoolStats;
  /** opens the pool's `min` connections at once (answers how many are open); a failure rejects */
  warm: () => Promise<number>;
  /** ends the pool unless Prisma's disconnect already did (Prisma may never have connected) */
  end: () => Promise<void>;
} {
  let queries = 0;
  class CountingClient extends Client {
    override query(...args: unknown[]): never {
      queries++;
      return (Client.prototype.query as (...a: unknown[]) => never).apply(this, args);
    }
  }
  const pool = new Pool({
    connectionString,
    max: settings.size,
    connectionTimeoutMillis: settings.timeoutMs,
    min: settings.min ?? 0,
    idleTimeoutMillis: settings.idleMs ?? 10_000,
    Client: CountingClient,
  });
  boundQueue(pool, settings);
  // An idle connection the server closes (restart, DROP DATABASE … WITH (FORCE)) leaves the pool;
  // without a listener its 'error' would end the process. Prisma adds its own only once it connects.
  pool.on('error', onIdleError);
  return {
    adapter: new PrismaPg(pool, { disposeExternalPool: true }),
    reader: {
      rows: async <T>(statement: { name: string; text: string }, params: readonly unknown[]) =>
        (await pool.query({ name: statement.name, text: statement.text, values: params as unknown[] })).rows as T[],
    },
    stats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, queries }),
    warm: async () => {
      const wanted = Math.max(0, (settings.min ?? 0) - pool.totalCount);
      const opened = await Promise.allSettled(Array.from({ length: wanted }, () => pool.connect()));
      for (const c of opened) if (c.status === 'fulfilled') c.value.release();
      const failed = opened.find((c) => c.status === 'rejected');
      if (failed) throw failed.reason;
      return pool.totalCount;
    },
    end: async () => {
      if (!pool.ended) await pool.end();
    },
  };
}

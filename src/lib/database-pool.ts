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
 *
 * The same pool serves the plain SQL reads of src/lib/sql.ts.
 *
 * Every statement sent on a pool connection is counted (`db_queries_total`; BEGIN and COMMIT
 * included): `npm run bench:http` reads it to report SQL round trips per request.
 */
export function createPgAdapter(
  connectionString: string,
  onIdleError: (err: Error) => void,
): {
  adapter: PrismaPg;
  reader: SqlReader;
  stats: () => DatabasePoolStats;
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
  const pool = new Pool({ connectionString, connectionTimeoutMillis: 5000, Client: CountingClient });
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
    end: async () => {
      if (!pool.ended) await pool.end();
    },
  };
}

import { PrismaPg } from '@prisma/adapter-pg';
import { Pool } from 'pg';
import type { DatabasePoolStats } from './metrics.js';

/**
 * The pg pool behind Prisma, built here so that its counters can be read for the metrics.
 * Given a connection string, @prisma/adapter-pg 7.10 builds a pool of its own that nothing
 * outside reaches (PrismaClient does not expose its adapter; the adapter's underlyingDriver()
 * exists only on the connection it makes internally), so we pass it our pool instead.
 * `disposeExternalPool` keeps today's lifecycle: `prisma.$disconnect()` ends the pool. (A query
 * after that makes the adapter build a fresh internal pool, which these counters no longer see.)
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
}

export function createPgAdapter(
  connectionString: string,
  settings: PoolSettings = { size: 10, timeoutMs: 5000 },
): { adapter: PrismaPg; stats: () => DatabasePoolStats } {
  const pool = new Pool({ connectionString, max: settings.size, connectionTimeoutMillis: settings.timeoutMs });
  return {
    adapter: new PrismaPg(pool, { disposeExternalPool: true }),
    stats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
  };
}

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
export function createPgAdapter(connectionString: string): { adapter: PrismaPg; stats: () => DatabasePoolStats } {
  const pool = new Pool({ connectionString, connectionTimeoutMillis: 5000 });
  return {
    adapter: new PrismaPg(pool, { disposeExternalPool: true }),
    stats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
  };
}

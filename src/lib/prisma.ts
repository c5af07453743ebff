import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { Client } from 'pg';
import { PrismaClient } from '../generated/prisma/client.js';
import { config } from '../config/index.js';
import { createPgAdapter } from './database-pool.js';
import { logger } from './logger.js';
import type { DatabasePoolStats } from './metrics.js';
import { applyMigrations, type MigrationResult, type SqlExecutor } from './migrate.js';
import { seedReferenceData } from './seed.js';

/**
 * The one Prisma client of the process.
 * DATABASE_URL set   → PostgreSQL through @prisma/adapter-pg (a pg pool).
 * DATABASE_URL unset → embedded PGlite (WebAssembly PostgreSQL) kept in EMBEDDED_DB_DIR.
 * Both run the same migrations (src/lib/migrate.ts).
 */

export type DatabaseKind = 'postgres' | 'embedded';
export const databaseKind: DatabaseKind = config.databaseUrl ? 'postgres' : 'embedded';

let pglite: PGlite | undefined;
let embeddedLockFile: string | undefined;

/**
 * PGlite is single-process: a second process opening the same data directory would not see
 * the first one's writes and could corrupt the files. A lock file holding the owner's pid
 * makes the second process (e.g. the CLI while the server runs) refuse with a clear message.
 */
function lockEmbeddedDirectory(dir: string): void {
  const file = path.join(dir, 'wcs-service.lock');
  try {
    const pid = Number(readFileSync(file, 'utf8').trim());
    if (pid && pid !== process.pid && isAlive(pid)) {
      const error = new Error(
        `The embedded database in ${dir} is in use by process ${pid}. Stop that process first, ` +
          'or use the admin API, or run both against PostgreSQL (DATABASE_URL).',
      );
      error.name = 'EmbeddedDatabaseLockedError';
      throw error;
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  writeFileSync(file, String(process.pid));
  embeddedLockFile = file;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

let readPoolStats: (() => DatabasePoolStats) | undefined;

/** The pg pool's counters (PostgreSQL only; undefined with the embedded database). */
export function databasePoolStats(): DatabasePoolStats | undefined {
  return readPoolStats?.();
}

function createClient(): PrismaClient {
  if (config.databaseUrl) {
    const pg = createPgAdapter(config.databaseUrl);
    readPoolStats = pg.stats;
    return new PrismaClient({ adapter: pg.adapter });
  }
  const dir = path.resolve(config.embeddedDbDir);
  mkdirSync(dir, { recursive: true });
  lockEmbeddedDirectory(dir);
  pglite = new PGlite(dir);
  return new PrismaClient({ adapter: new PrismaPGlite(pglite) });
}

export const prisma = createClient();

async function withMigrationExecutor<T>(fn: (db: SqlExecutor) => Promise<T>): Promise<T> {
  if (pglite) {
    const db = pglite;
    return fn({
      query: async <R>(sql: string, params?: unknown[]) => (await db.query<R>(sql, params)).rows,
      exec: async (sql: string) => {
        await db.exec(sql);
      },
    });
  }
  // A dedicated connection: the advisory lock of the migration runner is per session.
  const client = new Client({ connectionString: config.databaseUrl, connectionTimeoutMillis: 10000 });
  await client.connect();
  try {
    return await fn({
      query: async <R>(sql: string, params?: unknown[]) => (await client.query(sql, params)).rows as R[],
      exec: async (sql: string) => {
        await client.query(sql);
      },
    });
  } finally {
    await client.end();
  }
}

/** Applies pending migrations and seeds the reference data. Called once at start. */
export async function prepareDatabase(): Promise<MigrationResult> {
  const result = await withMigrationExecutor((db) => applyMigrations(db));
  await seedReferenceData(prisma);
  logger.info(
    { database: databaseKind, applied: result.applied, alreadyApplied: result.alreadyApplied },
    result.applied.length ? `applied ${result.applied.length} migration(s)` : 'database schema is up to date',
  );
  return result;
}

/** true when a trivial query succeeds */
export async function pingDatabase(): Promise<boolean> {
  try {
    await prisma.$queryRaw`SELECT 1`;
    return true;
  } catch {
    return false;
  }
}

export async function closeDatabase(): Promise<void> {
  await prisma.$disconnect().catch(() => undefined);
  if (pglite && !pglite.closed) await pglite.close().catch(() => undefined);
  if (embeddedLockFile) rmSync(embeddedLockFile, { force: true });
}

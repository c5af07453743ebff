import { PrismaPg } from '@prisma/adapter-pg';
import { Client } from 'pg';
import { PrismaClient } from '../generated/prisma/client.js';
import { config } from '../config/index.js';
import { currentDatabase } from './database.js';
import { logger } from './logger.js';
import { applyMigrations, type MigrationResult, type SqlExecutor } from './migrate.js';
import { seedReferenceData } from './seed.js';

/**
 * The one Prisma client of the process: PostgreSQL through @prisma/adapter-pg (a pg pool),
 * on DATABASE_URL or on the embedded server that server.ts/cli.ts started (src/lib/database.ts).
 */

const database = currentDatabase(config);
export const databaseKind = database.kind;

export const prisma = new PrismaClient({
  adapter: new PrismaPg({ connectionString: database.url, connectionTimeoutMillis: 5000 }),
});

async function withMigrationExecutor<T>(fn: (db: SqlExecutor) => Promise<T>): Promise<T> {
  // A dedicated connection: the advisory lock of the migration runner is per session.
  const client = new Client({ connectionString: database.url, connectionTimeoutMillis: 10000 });
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
}

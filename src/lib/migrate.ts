import { createHash, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import path from 'node:path';

/**
 * Applies the hand-written migrations under prisma/migrations and records them in
 * Prisma's own `_prisma_migrations` table (same columns, checksum = sha256 of the file),
 * so that Prisma's CLI sees them as applied. Runs on a `pg` connection through the
 * small SqlExecutor interface. Concurrent starts are serialised by an advisory lock.
 */

export interface SqlExecutor {
  /** runs one parameterised statement and returns its rows */
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  /** runs a script of several statements */
  exec(sql: string): Promise<void>;
}

export interface MigrationResult {
  applied: string[];
  alreadyApplied: number;
}

export const MIGRATIONS_DIR = path.resolve(__dirname, '..', '..', 'prisma', 'migrations');

// Prisma's own key for its migration advisory lock, so `prisma migrate` and we exclude each other.
const MIGRATION_LOCK_KEY = 72707369;

interface LocalMigration {
  name: string;
  sql: string;
  checksum: string;
}

export function listLocalMigrations(dir = MIGRATIONS_DIR): LocalMigration[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(path.join(dir, d.name, 'migration.sql')))
    .map((d) => d.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(path.join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });
}

/**
 * Applies the pending migrations of `dir` in name order; `only` restricts them to the given names
 * (db:restore first builds the schema a backup was made with, then applies the newer ones).
 */
export async function applyMigrations(
  db: SqlExecutor,
  dir = MIGRATIONS_DIR,
  only?: ReadonlySet<string>,
): Promise<MigrationResult> {
  await db.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
  try {
    await db.exec(`
      CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
        "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
        "checksum"              VARCHAR(64) NOT NULL,
        "finished_at"           TIMESTAMPTZ,
        "migration_name"        VARCHAR(255) NOT NULL,
        "logs"                  TEXT,
        "rolled_back_at"        TIMESTAMPTZ,
        "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
        "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
      );`);
    const rows = await db.query<{ migration_name: string; checksum: string; finished_at: unknown }>(
      'SELECT migration_name, checksum, finished_at FROM "_prisma_migrations" WHERE rolled_back_at IS NULL',
    );
    const failed = rows.find((r) => r.finished_at === null);
    if (failed) {
      throw new Error(
        `Migration ${failed.migration_name} failed earlier and was not resolved; fix the database, then mark it rolled back in _prisma_migrations`,
      );
    }
    const applied = new Map(rows.map((r) => [r.migration_name, r.checksum]));
    const result: MigrationResult = { applied: [], alreadyApplied: 0 };

    for (const migration of listLocalMigrations(dir)) {
      if (only && !only.has(migration.name)) continue;
      const recorded = applied.get(migration.name);
      if (recorded !== undefined) {
        if (recorded !== migration.checksum) {
          throw new Error(`Migration ${migration.name} was modified after it was applied (checksum mismatch)`);
        }
        result.alreadyApplied++;
        continue;
      }
      // The record and the migration commit together (issue 16): a process killed or stopped
      // half-way (SIGTERM during start-up) leaves neither a half-applied schema nor an
      // unfinished record that would block the next start; the server rolls the transaction back.
      const id = randomUUID();
      await db.exec('BEGIN');
      try {
        await db.query(
          'INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, applied_steps_count) VALUES ($1, $2, $3, now(), 0)',
          [id, migration.checksum, migration.name],
        );
        await db.exec(migration.sql);
        await db.query('UPDATE "_prisma_migrations" SET finished_at = now(), applied_steps_count = 1 WHERE id = $1', [
          id,
        ]);
        await db.exec('COMMIT');
      } catch (err) {
        await db.exec('ROLLBACK').catch(() => undefined);
        throw new Error(`Migration ${migration.name} failed: ${(err as Error).message}`, { cause: err });
      }
      result.applied.push(migration.name);
    }
    return result;
  } finally {
    await db.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
  }
}

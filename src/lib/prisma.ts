import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { Client } from 'pg';
import { PrismaClient } from '../generated/prisma/client.js';
import type { Config } from '../config/index.js';
import type { Logger } from './logger.js';
import { applyMigrations, type MigrationResult, type SqlExecutor } from './migrate.js';
import { seedReferenceData } from './seed.js';
import { createPgAdapter } from './database-pool.js';
import type { DatabasePoolStats } from './metrics.js';
import { sql, type SqlReader } from './sql.js';

const ping = sql('health_ping', 'SELECT 1');
import { bridgedPrisma } from '../container-bridge.js';

/**
 * The database of a container.
 * DATABASE_URL set   → PostgreSQL through @prisma/adapter-pg (a pg pool).
 * DATABASE_URL unset → embedded PGlite (WebAssembly PostgreSQL) kept in EMBEDDED_DB_DIR.
 * Both run the same migrations (src/lib/migrate.ts). Nothing connects before `prepare()`
 * or the first query.
 */
export type DatabaseKind = 'postgres' | 'embedded';

export class EmbeddedDatabaseLockedError extends Error {
  override name = 'EmbeddedDatabaseLockedError';
}

export class Database {
  readonly prisma: PrismaClient;
  readonly kind: DatabaseKind;
  /** plain SQL reads of the hot paths on the same connections (src/lib/sql.ts) */
  readonly sql: SqlReader;
  private pglite: PGlite | undefined;
  private lockFile: string | undefined;
  private readPoolStats: (() => DatabasePoolStats) | undefined;
  private endPool: (() => Promise<void>) | undefined;

  constructor(
    private readonly config: Pick<Config, 'databaseUrl' | 'embeddedDbDir'>,
    private readonly logger: Logger,
  ) {
    this.kind = config.databaseUrl ? 'postgres' : 'embedded';
    const { prisma, sql } = this.createClient();
    this.prisma = prisma;
    this.sql = sql;
  }

  private createClient(): { prisma: PrismaClient; sql: SqlReader } {
    if (this.config.databaseUrl) {
      const pg = createPgAdapter(this.config.databaseUrl, (err) => this.logger.warn({ err }, 'idle database connection closed by the server'));
      this.readPoolStats = pg.stats;
      this.endPool = pg.end;
      return { prisma: new PrismaClient({ adapter: pg.adapter }), sql: pg.reader };
    }
    const dir = path.resolve(this.config.embeddedDbDir);
    mkdirSync(dir, { recursive: true });
    this.lockEmbeddedDirectory(dir);
    const pglite = new PGlite(dir);
    this.pglite = pglite;
    const sql: SqlReader = {
      rows: async <T>(statement: { text: string }, params: readonly unknown[]) =>
        (await pglite.query<T>(statement.text, params as unknown[])).rows,
    };
    return { prisma: new PrismaClient({ adapter: new PrismaPGlite(pglite) }), sql };
  }

  /**
   * PGlite is single-process: a second process opening the same data directory would not see
   * the first one's writes and could corrupt the files. A lock file holding the owner's pid
   * makes the second process (e.g. the CLI while the server runs) refuse with a clear message.
   */
  private lockEmbeddedDirectory(dir: string): void {
    const file = path.join(dir, 'wcs-service.lock');
    try {
      const pid = Number(readFileSync(file, 'utf8').trim());
      if (pid && pid !== process.pid && isAlive(pid)) {
        throw new EmbeddedDatabaseLockedError(
          `The embedded database in ${dir} is in use by process ${pid}. Stop that process first, ` +
            'or use the admin API, or run both against PostgreSQL (DATABASE_URL).',
        );
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    writeFileSync(file, String(process.pid));
    this.lockFile = file;
  }

  private async withMigrationExecutor<T>(fn: (db: SqlExecutor) => Promise<T>): Promise<T> {
    if (this.pglite) {
      const db = this.pglite;
      return fn({
        query: async <R>(sql: string, params?: unknown[]) => (await db.query<R>(sql, params)).rows,
        exec: async (sql: string) => {
          await db.exec(sql);
        },
      });
    }
    // A dedicated connection: the advisory lock of the migration runner is per session.
    const client = new Client({ connectionString: this.config.databaseUrl, connectionTimeoutMillis: 10000 });
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
  async prepare(): Promise<MigrationResult> {
    const result = await this.withMigrationExecutor((db) => applyMigrations(db));
    await seedReferenceData(this.prisma);
    this.logger.info(
      { database: this.kind, applied: result.applied, alreadyApplied: result.alreadyApplied },
      result.applied.length ? `applied ${result.applied.length} migration(s)` : 'database schema is up to date',
    );
    return result;
  }

  /** The pg pool's counters (PostgreSQL only; undefined with the embedded database). */
  poolStats(): DatabasePoolStats | undefined {
    return this.readPoolStats?.();
  }

  /** true when a trivial query succeeds */
  async ping(): Promise<boolean> {
    try {
      await this.sql.rows(ping, []);
      return true;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    await this.prisma.$disconnect().catch(() => undefined);
    await this.endPool?.().catch(() => undefined);
    if (this.pglite && !this.pglite.closed) await this.pglite.close().catch(() => undefined);
    if (this.lockFile) rmSync(this.lockFile, { force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** @deprecated transitional: the current container's client (src/container-bridge.ts). */
export const prisma: PrismaClient = bridgedPrisma();

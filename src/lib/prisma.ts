import { Client } from 'pg';
import { PrismaClient } from '../generated/prisma/client.js';
import type { Logger } from './logger.js';
import { applyMigrations, listLocalMigrations, type MigrationResult, type SqlExecutor } from './migrate.js';
import { seedReferenceData } from './seed.js';
import { reasonOf, WarnOnce } from './connection-loss.js';
import { createPgAdapter, type PoolSettings } from './database-pool.js';
import type { DatabasePoolStats } from './metrics.js';
import { sql, type SqlReader } from './sql.js';
import { CallerBatches } from './caller-batches.js';

const ping = sql('health_ping', 'SELECT 1');
const appliedMigrations = sql(
  'health_applied_migrations',
  'SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
);
/** The migrations of this build, read once (they do not change while the process runs). */
let localNames: string[] | undefined;
const localMigrationNames = () => (localNames ??= listLocalMigrations().map((m) => m.name));

/**
 * The database of a container: PostgreSQL through @prisma/adapter-pg (a pg pool), on
 * DATABASE_URL or on the embedded server that server.ts/cli.ts started (src/lib/database.ts
 * resolves which). Nothing connects before `prepare()` or the first query.
 */
export type DatabaseKind = 'postgres' | 'embedded';

export class Database {
  readonly prisma: PrismaClient;
  /** plain SQL reads of the hot paths on the same connections (src/lib/sql.ts) */
  readonly sql: SqlReader;
  private readonly readPoolStats: () => DatabasePoolStats;
  private readonly warmPool: () => Promise<number>;
  private readonly endPool: () => Promise<void>;

  constructor(
    private readonly url: string,
    /** where the URL came from: DATABASE_URL, or the embedded server (reported by /api/health) */
    readonly kind: DatabaseKind,
    private readonly logger: Logger,
    pool?: PoolSettings,
  ) {
    // one line per outage, without the connection object pg attaches to the error (issue 23)
    const idleErrors = new WarnOnce(logger);
    const pg = createPgAdapter(url, pool, (err) =>
      idleErrors.warn(
        'idle',
        { reason: reasonOf(err) },
        'idle database connection closed by the server; the pool opens a new one when needed',
      ),
    );
    this.readPoolStats = pg.stats;
    this.warmPool = pg.warm;
    this.endPool = pg.end;
    // per-caller hot reads arriving together are one statement (src/lib/caller-batches.ts)
    this.sql = new CallerBatches(pg.reader);
    this.prisma = new PrismaClient({ adapter: pg.adapter });
  }

  private async withMigrationExecutor<T>(fn: (db: SqlExecutor) => Promise<T>): Promise<T> {
    // A dedicated connection: the advisory lock of the migration runner is per session.
    const client = new Client({ connectionString: this.url, connectionTimeoutMillis: 10000 });
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

  /** The pg pool's counters (for the metrics). */
  poolStats(): DatabasePoolStats {
    return this.readPoolStats();
  }

  /**
   * Opens the pool's kept connections (DATABASE_POOL_MIN) before the service listens, so the
   * first burst of requests does not wait for them; answers how many are open. Rejects when the
   * database refuses a connection (the caller logs it: requests open connections as usual).
   */
  warm(): Promise<number> {
    return this.warmPool();
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

  /**
   * Whether every migration shipped with this build is recorded as applied (readiness): a
   * database restored from an older backup, or migrated by nobody yet, is not ready.
   */
  async migrationsApplied(): Promise<boolean> {
    try {
      const rows = await this.sql.rows<{ migration_name: string }>(appliedMigrations, []);
      const applied = new Set(rows.map((r) => r.migration_name));
      return localMigrationNames().every((name) => applied.has(name));
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    await this.prisma.$disconnect().catch(() => undefined);
    await this.endPool().catch(() => undefined);
  }
}

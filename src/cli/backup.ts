import { createReadStream, createWriteStream, existsSync, renameSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { Client } from 'pg';
import { AppError } from '../lib/errors.js';
import { applyMigrations, listLocalMigrations, type SqlExecutor } from '../lib/migrate.js';

/**
 * `db:backup <file>` and `db:restore <file> [--force]` (docs/operations.md, "Backup and restore").
 *
 * A logical backup through the ordinary `pg` driver, so it works on the embedded server (whose
 * package has no pg_dump) and on any external PostgreSQL, whatever pg_dump version is around.
 * The file is JSON Lines:
 *   line 1   header `{ format, version, createdAt, server, migrations: [names], tables: { name: rows } }`
 *   then     one line per row: `{ "t": "<table>", "r": <row_to_json of the row> }`, table by table
 * Every table of the `public` schema is read in ONE read-only REPEATABLE READ transaction: the
 * backup is a single snapshot, consistent while the service keeps writing. Not included: the
 * migration records (the header names them) and the mail queue (schema `pgboss`: mails still
 * queued when the backup is taken are not in it).
 *
 * A restore goes into an empty database (no table in `public`); `--force` first drops the
 * schemas `public` and `pgboss`. It applies exactly the migrations the backup was made with,
 * loads the rows with the foreign keys set aside (re-added, and so re-checked, before the
 * commit), moves every sequence past the restored ids, and leaves the newer migrations of this
 * build and the reference data to the usual start-up preparation.
 */

export const BACKUP_FORMAT = 'wcs-partner-service backup';
const BACKUP_VERSION = 1;
const FETCH_ROWS = 1000;
const INSERT_ROWS = 500;

export interface BackupHeader {
  format: string;
  version: number;
  createdAt: string;
  /** `server_version` of the PostgreSQL server the backup was read from */
  server: string;
  migrations: string[];
  /** row count of every table, in the order the rows follow */
  tables: Record<string, number>;
}

export interface BackupSummary {
  file: string;
  tables: number;
  rows: number;
  migrations: number;
}

const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;

async function connect(url: string): Promise<Client> {
  const client = new Client({
    connectionString: url,
    connectionTimeoutMillis: 10000,
    application_name: 'wcs-cli-backup',
  });
  await client.connect();
  return client;
}

async function publicTables(client: Client): Promise<string[]> {
  const { rows } = await client.query<{ name: string }>(
    "SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' AND tablename <> '_prisma_migrations' ORDER BY tablename",
  );
  return rows.map((r) => r.name);
}

async function primaryKey(client: Client, table: string): Promise<string[]> {
  const { rows } = await client.query<{ name: string }>(
    `SELECT a.attname AS name
       FROM pg_index i
       JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)
      WHERE i.indrelid = $1::regclass AND i.indisprimary
      ORDER BY array_position(i.indkey::int2[], a.attnum)`,
    [`public.${ident(table)}`],
  );
  return rows.map((r) => r.name);
}

/** Writes a consistent backup of the database at `url` to `file` (through `<file>.partial`, mode 600: it holds password hashes). */
export async function backupDatabase(url: string, file: string): Promise<BackupSummary> {
  const client = await connect(url);
  const partial = `${file}.partial`;
  const out = createWriteStream(partial, { mode: 0o600 });
  const write = async (line: string) => {
    if (!out.write(`${line}\n`)) await once(out, 'drain');
  };
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const { rows: schema } = await client.query<{ found: string | null }>(
      "SELECT to_regclass('public._prisma_migrations')::text AS found",
    );
    if (!schema[0].found) {
      throw new AppError('BAD_REQUEST', {
        message: 'The database holds no data of this service yet (the service never started on it): nothing to back up',
      });
    }
    const migrations = await client.query<{ name: string }>(
      'SELECT migration_name AS name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL ORDER BY migration_name',
    );
    const tables = await publicTables(client);
    const counts: Record<string, number> = {};
    for (const table of tables) {
      const { rows } = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${ident(table)}`);
      counts[table] = rows[0].n;
    }
    const server = (await client.query<{ v: string }>("SELECT current_setting('server_version') AS v")).rows[0].v;
    const header: BackupHeader = {
      format: BACKUP_FORMAT,
      version: BACKUP_VERSION,
      createdAt: new Date().toISOString(),
      server,
      migrations: migrations.rows.map((r) => r.name),
      tables: counts,
    };
    await write(JSON.stringify(header));
    for (const table of tables) {
      // In primary-key order: the same data always gives the same file.
      const order = await primaryKey(client, table);
      const orderBy = order.length ? ` ORDER BY ${order.map((c) => `t.${ident(c)}`).join(', ')}` : '';
      await client.query(
        `DECLARE backup_rows NO SCROLL CURSOR FOR SELECT row_to_json(t)::text AS r FROM ${ident(table)} t${orderBy}`,
      );
      for (;;) {
        const { rows } = await client.query<{ r: string }>(`FETCH ${FETCH_ROWS} FROM backup_rows`);
        for (const row of rows) await write(`{"t":${JSON.stringify(table)},"r":${row.r}}`);
        if (rows.length < FETCH_ROWS) break;
      }
      await client.query('CLOSE backup_rows');
    }
    await client.query('COMMIT');
    out.end();
    await once(out, 'finish');
    renameSync(partial, file);
    const rows = Object.values(counts).reduce((a, b) => a + b, 0);
    return { file, tables: tables.length, rows, migrations: header.migrations.length };
  } catch (err) {
    out.destroy();
    rmSync(partial, { force: true });
    throw err;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The lines of a backup file: its header, then the rows. */
async function* readBackup(file: string): AsyncGenerator<BackupHeader | { t: string; r: Record<string, unknown> }> {
  const lines = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
  let first = true;
  for await (const line of lines) {
    if (!line) continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new AppError('BAD_REQUEST', { message: `${file} is not a backup of this service (a line is not JSON)` });
    }
    if (first) {
      const header = value as Partial<BackupHeader>;
      if (header.format !== BACKUP_FORMAT || header.version !== BACKUP_VERSION || !Array.isArray(header.migrations)) {
        throw new AppError('BAD_REQUEST', {
          message: `${file} is not a backup of this service (format ${BACKUP_FORMAT} ${BACKUP_VERSION})`,
        });
      }
      first = false;
    }
    yield value as BackupHeader;
  }
  if (first) throw new AppError('BAD_REQUEST', { message: `${file} is empty` });
}

/** A pg client as the migration runner's executor. */
const executor = (client: Client): SqlExecutor => ({
  query: async <R>(text: string, params?: unknown[]) => (await client.query(text, params)).rows as R[],
  exec: async (text: string) => {
    await client.query(text);
  },
});

export interface RestoreOptions {
  /** replace the contents of a non-empty database */
  force?: boolean;
}

/**
 * Restores `file` into the database at `url`. Refuses a non-empty database unless `force`, and
 * a backup made by a newer build (a migration this build does not have).
 */
export async function restoreDatabase(url: string, file: string, options: RestoreOptions = {}): Promise<BackupSummary> {
  if (!existsSync(file)) throw new AppError('BAD_REQUEST', { message: `${file} does not exist` });
  const rows = readBackup(file);
  const header = (await rows.next()).value as BackupHeader;
  const known = new Set(listLocalMigrations().map((m) => m.name));
  const unknown = header.migrations.filter((m) => !known.has(m));
  if (unknown.length) {
    throw new AppError('BAD_REQUEST', {
      message: `The backup was made by a newer version of the service (migration ${unknown[0]} is unknown here): restore it with that version`,
    });
  }
  const client = await connect(url);
  try {
    const existing = await publicTables(client);
    if (existing.length && !options.force) {
      throw new AppError('CONFLICT', {
        message: `The database is not empty (${existing.length} tables): db:restore writes into an empty database; add --force to replace its contents`,
      });
    }
    if (options.force)
      await client.query(
        'DROP SCHEMA IF EXISTS pgboss CASCADE; DROP SCHEMA IF EXISTS public CASCADE; CREATE SCHEMA public',
      );
    await applyMigrations(executor(client), undefined, new Set(header.migrations));
    await client.query('BEGIN');
    const foreignKeys = await setForeignKeysAside(client);
    let table = '';
    let batch: unknown[] = [];
    const flush = async () => {
      if (!batch.length) return;
      await client.query(
        `INSERT INTO ${ident(table)} SELECT * FROM json_populate_recordset(NULL::${ident(table)}, $1::json)`,
        [JSON.stringify(batch)],
      );
      batch = [];
    };
    let total = 0;
    for await (const line of rows) {
      const row = line as { t: string; r: Record<string, unknown> };
      if (row.t !== table) {
        await flush();
        table = row.t;
      }
      batch.push(row.r);
      total++;
      if (batch.length >= INSERT_ROWS) await flush();
    }
    await flush();
    for (const fk of foreignKeys)
      await client.query(`ALTER TABLE ${ident(fk.table)} ADD CONSTRAINT ${ident(fk.name)} ${fk.definition}`);
    await resetSequences(client);
    await client.query('COMMIT');
    return { file, tables: Object.keys(header.tables).length, rows: total, migrations: header.migrations.length };
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    await rows.return(undefined);
    await client.end().catch(() => undefined);
  }
}

/**
 * Drops the foreign keys of `public` (inside the restore's transaction) and answers their
 * definitions: rows load in any order (a user suspended by a later user), and re-adding the
 * keys checks every row before the commit.
 */
async function setForeignKeysAside(client: Client): Promise<{ table: string; name: string; definition: string }[]> {
  const { rows } = await client.query<{ table: string; name: string; definition: string }>(
    `SELECT c.conrelid::regclass::text AS "table", c.conname AS name, pg_get_constraintdef(c.oid) AS definition
       FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace
      WHERE c.contype = 'f' AND n.nspname = 'public'`,
  );
  const keys = rows.map((r) => ({ ...r, table: r.table.replace(/^"(.*)"$/, '$1').replaceAll('""', '"') }));
  for (const fk of keys) await client.query(`ALTER TABLE ${ident(fk.table)} DROP CONSTRAINT ${ident(fk.name)}`);
  return keys;
}

/** Moves every sequence owned by a column of `public` past the largest restored value. */
async function resetSequences(client: Client): Promise<void> {
  const { rows } = await client.query<{ seq: string; tbl: string; col: string }>(
    `SELECT s.oid::regclass::text AS seq, t.relname AS tbl, a.attname AS col
       FROM pg_class s
       JOIN pg_depend d ON d.objid = s.oid AND d.deptype IN ('a', 'i')
       JOIN pg_class t ON t.oid = d.refobjid
       JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = d.refobjsubid
       JOIN pg_namespace n ON n.oid = t.relnamespace
      WHERE s.relkind = 'S' AND n.nspname = 'public'`,
  );
  for (const r of rows) {
    await client.query(
      `SELECT setval($1::regclass, COALESCE((SELECT max(${ident(r.col)}) FROM ${ident(r.tbl)}), 0) + 1, false)`,
      [r.seq],
    );
  }
}

import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { applyMigrations, MIGRATIONS_DIR, listLocalMigrations } from '../../src/lib/migrate';
import { adminUrl, databaseUrlFor } from '../setup/test-db';
import { freePort } from '../helpers/process';
import { spawnServer, until } from '../helpers/server-process';

/**
 * Issue 16, items 3 and 6, with the real server process: a start against a database that does
 * not answer retries and then ends with exit 1 and one line; a SIGTERM during start-up (while
 * waiting for the database, or in the middle of a migration) ends with exit 0 and leaves no
 * half-applied migration.
 */
describe('start-up with the database down', () => {
  it('retries, logging each attempt, then exits 1 with one line naming the database and its address, password masked', async () => {
    const port = await freePort();
    const server = await spawnServer({
      DATABASE_URL: `postgresql://wcs:s3cret-pass@127.0.0.1:${port}/wcs_down`,
      DATABASE_STARTUP_TIMEOUT_SECONDS: '1',
    });
    const { code } = await server.exited;
    expect(code).toBe(1);
    const stderr = server.stderr().trim();
    expect(stderr.split('\n')).toHaveLength(1);
    expect(stderr).toMatch(
      new RegExp(
        `^Cannot start: database "wcs_down" at 127\\.0\\.0\\.1:${port} \\(postgresql://wcs:\\*\\*\\*\\*@127\\.0\\.0\\.1:${port}/wcs_down\\) is not reachable: .*ECONNREFUSED`,
      ),
    );
    expect(server.output()).not.toContain('s3cret-pass');
    expect(server.output()).not.toMatch(/\n\s+at /);
    expect(server.output().match(/database not reachable; retrying/g)?.length).toBeGreaterThanOrEqual(2);
  }, 60000);

  it('exits 0 on SIGTERM while it waits for the database', async () => {
    const port = await freePort();
    const server = await spawnServer({
      DATABASE_URL: `postgresql://wcs@127.0.0.1:${port}/wcs_down`,
      DATABASE_STARTUP_TIMEOUT_SECONDS: '600',
    });
    await server.waitForOutput(/database not reachable; retrying/);
    server.child.kill('SIGTERM');
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(server.output()).toContain('stopped during start-up');
  }, 60000);
});

describe('SIGTERM in the middle of a migration', () => {
  const name = `wcs_sigterm_${Date.now()}_${process.pid}`;
  const url = databaseUrlFor(name);
  const [first, second] = listLocalMigrations();
  const onlyFirst = mkdtempSync(path.join(os.tmpdir(), 'wcs-migrations-'));
  const client = (u: string) => new Client({ connectionString: u });

  beforeAll(async () => {
    const admin = client(adminUrl());
    await admin.connect();
    await admin.query(`CREATE DATABASE "${name}"`);
    await admin.end();
    // The database is at the first migration; the second is pending.
    cpSync(path.join(MIGRATIONS_DIR, first.name), path.join(onlyFirst, first.name), { recursive: true });
    const db = client(url);
    await db.connect();
    await applyMigrations(
      {
        query: async (sql, params) => (await db.query(sql, params)).rows,
        exec: async (sql) => void (await db.query(sql)),
      },
      onlyFirst,
    );
    await db.end();
  });
  afterAll(async () => {
    rmSync(onlyFirst, { recursive: true, force: true });
    const admin = client(adminUrl());
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.end();
  });

  it('exits 0, leaves neither the schema change nor an unfinished record, and the next start applies the migration', async () => {
    expect(second).toBeDefined();
    // Hold a lock the pending migration needs (its foreign key references "Match"), so that the
    // server is stopped while the migration runs.
    const blocker = client(url);
    await blocker.connect();
    // pg_stat_activity is read outside the blocker's transaction (which would keep one snapshot).
    const observer = client(url);
    await observer.connect();
    await blocker.query('BEGIN');
    await blocker.query('LOCK TABLE "Match" IN ACCESS EXCLUSIVE MODE');
    const server = await spawnServer({ DATABASE_URL: url, SHUTDOWN_TIMEOUT_MS: '200' });
    try {
      await until(async () => {
        if (server.child.exitCode !== null) throw new Error(`server exited early:\n${server.output()}`);
        const { rows } = await observer.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock' AND query LIKE '%VideoTransfer%'`,
          [name],
        );
        return rows[0].n > 0;
      });
      server.child.kill('SIGTERM');
      expect(await server.exited).toEqual({ code: 0, signal: null });
    } finally {
      await blocker.query('COMMIT');
    }
    // The server's session ends once its blocked statement runs; PostgreSQL rolls it back.
    await observer.end();
    await until(async () => {
      const { rows } = await blocker.query(
        'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
        [name],
      );
      return rows[0].n === 0;
    });
    const { rows: records } = await blocker.query(
      'SELECT migration_name, finished_at FROM "_prisma_migrations" ORDER BY migration_name',
    );
    expect(records.map((r) => r.migration_name)).toEqual([first.name]);
    expect(records.every((r) => r.finished_at !== null)).toBe(true);
    const { rows: table } = await blocker.query(`SELECT to_regclass('"VideoTransfer"') AS t`);
    expect(table[0].t).toBeNull();
    await blocker.end();

    const next = await spawnServer({ DATABASE_URL: url });
    await next.waitForOutput(/listening on/);
    next.child.kill('SIGTERM');
    expect(await next.exited).toEqual({ code: 0, signal: null });
    // the interrupted migration is applied now (with any later ones)
    expect(next.output()).toMatch(/"applied":\["[^"\]]*webrtc_transfers"/);
  }, 120000);
});

import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import pino from 'pino';
import { startEmbeddedDatabase, type EmbeddedDatabase } from '../../src/lib/embedded-postgres';
import { applyMigrations } from '../../src/lib/migrate';
import { startContractReport } from './contract-report';
import { databaseUrlFor, stateFileFor, writeState, type TestDbState } from './test-db';

declare global {
  // The run's embedded server, handed from global setup to global teardown (same process).
  var wcsTestServer: EmbeddedDatabase | undefined;
}

/**
 * Creates a fresh, uniquely named database for this test run and applies the migrations to
 * it (never assumes an existing database is empty). The server is TEST_DATABASE_ADMIN_URL
 * when set; otherwise an embedded PostgreSQL started for the run in a temporary directory,
 * which global teardown removes, or tests/setup/watchdog.cjs when the run is interrupted.
 * Reference data is seeded by tests/setup/after-env.ts through the service's own seeding code.
 */
export default async function globalSetup(): Promise<void> {
  startContractReport();
  const stateFile = stateFileFor(process.pid);
  const server = process.env.TEST_DATABASE_ADMIN_URL
    ? { adminUrl: process.env.TEST_DATABASE_ADMIN_URL, where: 'TEST_DATABASE_ADMIN_URL' }
    : await startRunServer(stateFile);

  const name = `wcs_test_${Date.now()}_${process.pid}`;
  const admin = new Client({ connectionString: server.adminUrl, connectionTimeoutMillis: 10000 });
  try {
    await admin.connect();
  } catch (err) {
    throw new Error(`Tests cannot reach the PostgreSQL server at TEST_DATABASE_ADMIN_URL: ${(err as Error).message}`, {
      cause: err,
    });
  }
  const { rows } = await admin.query<{ server_version: string }>('SHOW server_version');
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  console.log(`\nTests run on PostgreSQL ${rows[0].server_version} (${server.where})`);

  const url = databaseUrlFor(name, server.adminUrl);
  const db = new Client({ connectionString: url });
  await db.connect();
  await applyMigrations({
    query: async (sql, params) => (await db.query(sql, params)).rows,
    exec: async (sql) => {
      await db.query(sql);
    },
  });
  await db.end();

  const state: TestDbState = {
    name,
    url,
    adminUrl: server.adminUrl,
    embedded: 'embedded' in server ? server.embedded : undefined,
  };
  writeState(state, stateFile);
  process.env.WCS_TEST_STATE_FILE = stateFile;
  process.env.DATABASE_URL = url;
}

async function startRunServer(stateFile: string) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'wcs-test-pg-'));
  // Jest does not run global teardown on Ctrl-C or a crash: a detached watchdog that outlives
  // this process stops the server and removes the directory when it is gone.
  const watchdog = spawn(
    process.execPath,
    [path.join(__dirname, 'watchdog.cjs'), String(process.pid), dir, stateFile],
    {
      detached: true,
      stdio: 'ignore',
    },
  );
  watchdog.unref();
  const embedded = await startEmbeddedDatabase({
    dataDir: dir,
    logger: pino({ level: 'silent' }),
    role: 'test',
    disposable: true,
  });
  globalThis.wcsTestServer = embedded;
  return {
    adminUrl: databaseUrlFor('postgres', embedded.url),
    where: `embedded server in ${dir}; TEST_DATABASE_ADMIN_URL is unset`,
    embedded: { dir, watchdogPid: watchdog.pid },
  };
}

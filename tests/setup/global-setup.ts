import { Client } from 'pg';
import { applyMigrations } from '../../src/lib/migrate';
import { startContractReport } from './contract-report';
import { adminUrl, databaseUrlFor, stateFileFor, writeState } from './test-db';

/**
 * Creates a fresh, uniquely named PostgreSQL database for this test run and applies the
 * migrations to it (never assumes an existing database is empty). Reference data is
 * seeded by tests/setup/env.ts through the service's own seeding code.
 */
export default async function globalSetup(): Promise<void> {
  startContractReport();
  const name = `wcs_test_${Date.now()}_${process.pid}`;
  const admin = new Client({ connectionString: adminUrl(), connectionTimeoutMillis: 10000 });
  try {
    await admin.connect();
  } catch (err) {
    throw new Error(
      `Tests need a PostgreSQL server at ${adminUrl()} (set TEST_DATABASE_ADMIN_URL): ${(err as Error).message}`,
    );
  }
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();

  const url = databaseUrlFor(name);
  const db = new Client({ connectionString: url });
  await db.connect();
  await applyMigrations({
    query: async (sql, params) => (await db.query(sql, params)).rows,
    exec: async (sql) => {
      await db.query(sql);
    },
  });
  await db.end();

  const stateFile = stateFileFor(process.pid);
  writeState({ name, url }, stateFile);
  process.env.WCS_TEST_STATE_FILE = stateFile;
  process.env.DATABASE_URL = url;
}

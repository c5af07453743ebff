import { Client } from 'pg';
import { adminUrl, databaseUrlFor } from '../setup/test-db';

/** Runs one statement on the run's server (its administrative database). */
async function onServer(statement: string): Promise<void> {
  const admin = new Client({ connectionString: adminUrl() });
  await admin.connect();
  try {
    await admin.query(statement);
  } finally {
    await admin.end();
  }
}

let created = 0;

/**
 * An empty database of its own on the run's server, created on demand and dropped after the
 * block (or the file). Answers its URL.
 */
export function useScratchDatabases(): () => Promise<string> {
  const names: string[] = [];
  afterAll(async () => {
    for (const name of names.splice(0)) await onServer(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  });
  return async () => {
    const name = `wcs_scratch_${process.pid}_${Date.now()}_${++created}`;
    await onServer(`CREATE DATABASE "${name}"`);
    names.push(name);
    return databaseUrlFor(name);
  };
}

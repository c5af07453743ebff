import { rmSync } from 'node:fs';
import { Client } from 'pg';
import { printContractReport } from './contract-report';
import { readState, removeState } from './test-db';

/**
 * Drops the run's database, or stops the run's embedded server and removes its directory
 * (KEEP_TEST_DB=1 keeps them for inspection).
 */
export default async function globalTeardown(): Promise<void> {
  await printContractReport();
  const file = process.env.WCS_TEST_STATE_FILE;
  if (!file) return;
  const { name, adminUrl, embedded } = readState(file);
  removeState(file);
  if (embedded) {
    // From here on, this process cleans up; the watchdog is for an interrupted run.
    if (embedded.watchdogPid) {
      try {
        process.kill(embedded.watchdogPid, 'SIGTERM');
      } catch {
        /* already gone */
      }
    }
    await globalThis.wcsTestServer?.stop();
    if (process.env.KEEP_TEST_DB === '1') {
      console.log(`\nkept the test cluster in ${embedded.dir} (database ${name}; stopped)`);
      return;
    }
    rmSync(embedded.dir, { recursive: true, force: true });
    return;
  }
  if (process.env.KEEP_TEST_DB === '1') {
    console.log(`\nkept test database ${name}`);
    return;
  }
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await admin.end();
}

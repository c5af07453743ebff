import { Client } from 'pg';
import { printContractReport } from './contract-report';
import { adminUrl, readState, removeState } from './test-db';

/** Drops the run's database (KEEP_TEST_DB=1 keeps it for inspection). */
export default async function globalTeardown(): Promise<void> {
  await printContractReport();
  const file = process.env.WCS_TEST_STATE_FILE;
  if (!file) return;
  const { name } = readState(file);
  removeState(file);
  if (process.env.KEEP_TEST_DB === '1') {
    console.log(`\nkept test database ${name}`);
    return;
  }
  const admin = new Client({ connectionString: adminUrl() });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await admin.end();
}

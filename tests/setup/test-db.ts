import { readFileSync, writeFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Global setup creates a fresh database for the run on a PostgreSQL server: the one at
 * TEST_DATABASE_ADMIN_URL when it is set, otherwise an embedded server started for the run in
 * a temporary directory. It records the server and the database in a state file;
 * tests/setup/env.ts reads it in every test file, global teardown removes both.
 */
export const stateFileFor = (pid: number) => path.join(os.tmpdir(), `wcs-test-db-${pid}.json`);

export interface TestDbState {
  name: string;
  url: string;
  /** administrative URL of the server (its `postgres` database) */
  adminUrl: string;
  /** the run's embedded server, when TEST_DATABASE_ADMIN_URL is unset */
  embedded?: { dir: string; watchdogPid?: number };
}

/** The administrative URL of the run's server (tests create extra databases through it). */
export function adminUrl(): string {
  const file = process.env.WCS_TEST_STATE_FILE;
  if (!file) throw new Error('WCS_TEST_STATE_FILE is not set: run the tests through jest (globalSetup)');
  return readState(file).adminUrl;
}

export function databaseUrlFor(name: string, admin: string = adminUrl()): string {
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return url.toString();
}

export function writeState(state: TestDbState, file: string): void {
  writeFileSync(file, JSON.stringify(state), { mode: 0o600 });
}

export function readState(file: string): TestDbState {
  return JSON.parse(readFileSync(file, 'utf8')) as TestDbState;
}

export function removeState(file: string): void {
  rmSync(file, { force: true });
}

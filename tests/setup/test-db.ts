import { readFileSync, writeFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Global setup creates a fresh database on the PostgreSQL server (TEST_DATABASE_ADMIN_URL,
 * default postgresql://postgres@127.0.0.1:5432/postgres) and records its name and URL in a
 * state file; tests/setup/env.ts reads it in every test file, global teardown drops it.
 */
export const stateFileFor = (pid: number) => path.join(os.tmpdir(), `wcs-test-db-${pid}.json`);

export const adminUrl = () =>
  process.env.TEST_DATABASE_ADMIN_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';

export interface TestDbState {
  name: string;
  url: string;
}

export function databaseUrlFor(name: string): string {
  const url = new URL(adminUrl());
  url.pathname = `/${name}`;
  return url.toString();
}

export function writeState(state: TestDbState, file: string): void {
  writeFileSync(file, JSON.stringify(state));
}

export function readState(file: string): TestDbState {
  return JSON.parse(readFileSync(file, 'utf8')) as TestDbState;
}

export function removeState(file: string): void {
  rmSync(file, { force: true });
}

import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { childEnv, runTs, spawnTs } from '../helpers/process';
import { adminUrl, databaseUrlFor } from '../setup/test-db';

/**
 * The real server process (`npm start` runs `tsx src/server.ts`): it migrates its database at
 * start, serves /api/health, applies nothing new on a second start, and exits 0 on SIGTERM.
 */
async function waitForHealth(url: string, deadline: number) {
  while (Date.now() < deadline) {
    try {
      const res = await fetch(url);
      if (res.ok) return (await res.json()) as { data: { databaseKind: string } };
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error('server did not become healthy in time');
}

async function startAndStop(env: NodeJS.ProcessEnv, expectedKind: string, whileRunning?: () => Promise<void>) {
  const port = 30000 + Math.floor(Math.random() * 20000);
  const child = spawnTs('src/server.ts', [], { ...env, PORT: String(port), LOG_LEVEL: 'info' });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  try {
    const body = await waitForHealth(`http://127.0.0.1:${port}/api/health`, Date.now() + 60000);
    expect(body.data.databaseKind).toBe(expectedKind);
    await whileRunning?.();
  } finally {
    child.kill('SIGTERM');
  }
  const code = await exited;
  return { code, output };
}

describe('server start on the embedded database (no DATABASE_URL)', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'wcs-pglite-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('starts on an empty data directory, serves /api/health, and shuts down with exit 0; a second start applies nothing', async () => {
    const env = childEnv({ EMBEDDED_DB_DIR: dir });
    delete env.DATABASE_URL;
    // PGlite is single-process: a second process on the same directory must refuse, not corrupt it.
    let cli: Awaited<ReturnType<typeof runTs>> | undefined;
    const first = await startAndStop(env, 'embedded', async () => {
      cli = await runTs('src/cli.ts', ['user:promote', 'nobody@example.test'], env);
    });
    expect(cli?.code).toBe(1);
    expect(cli?.stderr).toMatch(/The embedded database in .* is in use by process \d+/);
    expect(first.code).toBe(0);
    expect(first.output).toMatch(/applied [1-9]\d* migration\(s\)/);
    expect(first.output).toContain('shutdown complete');

    const second = await startAndStop(env, 'embedded');
    expect(second.code).toBe(0);
    expect(second.output).toContain('database schema is up to date');
  }, 150000);
});

describe('server start on an empty PostgreSQL database (DATABASE_URL)', () => {
  const name = `wcs_start_${Date.now()}_${process.pid}`;
  const admin = () => new Client({ connectionString: adminUrl() });

  beforeAll(async () => {
    const c = admin();
    await c.connect();
    await c.query(`CREATE DATABASE "${name}"`);
    await c.end();
  });
  afterAll(async () => {
    const c = admin();
    await c.connect();
    await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await c.end();
  });

  it('migrates and seeds at the first start and applies nothing at the second', async () => {
    const env = childEnv({ DATABASE_URL: databaseUrlFor(name) });
    const first = await startAndStop(env, 'postgres');
    expect(first.code).toBe(0);
    expect(first.output).toMatch(/applied [1-9]\d* migration\(s\)/);

    const second = await startAndStop(env, 'postgres');
    expect(second.code).toBe(0);
    expect(second.output).toContain('database schema is up to date');

    const db = new Client({ connectionString: databaseUrlFor(name) });
    await db.connect();
    const { rows } = await db.query('SELECT count(*)::int AS n FROM "Division"');
    await db.end();
    expect(rows[0].n).toBe(6);
  }, 150000);
});

import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { childEnv, spawnTs } from '../helpers/process';

/** `npm start` with no DATABASE_URL: embedded PGlite, migrated at start, serving /api/health. */
describe('embedded database mode', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'wcs-pglite-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

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

  async function startAndStop(port: number) {
    const env = childEnv({ PORT: String(port), EMBEDDED_DB_DIR: dir, LOG_LEVEL: 'info' });
    delete env.DATABASE_URL;
    const child = spawnTs('src/server.ts', [], env);
    let output = '';
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    try {
      const body = await waitForHealth(`http://127.0.0.1:${port}/api/health`, Date.now() + 60000);
      expect(body.data.databaseKind).toBe('embedded');
    } finally {
      child.kill('SIGTERM');
    }
    const code = await exited;
    return { code, output };
  }

  it('starts on an empty data directory, serves /api/health, and shuts down with exit 0', async () => {
    const first = await startAndStop(30000 + Math.floor(Math.random() * 20000));
    expect(first.code).toBe(0);
    expect(first.output).toContain('applied 1 migration(s)');
    expect(first.output).toContain('shutdown complete');

    const second = await startAndStop(30000 + Math.floor(Math.random() * 20000));
    expect(second.code).toBe(0);
    expect(second.output).toContain('database schema is up to date');
  }, 150000);
});

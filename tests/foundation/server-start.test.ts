import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { childEnv, runTs, startServer, waitForHealth, type ServerProcess } from '../helpers/process';
import { adminUrl, databaseUrlFor } from '../setup/test-db';

/**
 * The real server process (`npm start` runs `node --import tsx src/server.ts` with heap flags, package.json): it migrates its database at
 * start, serves /api/health, applies nothing new on a second start, and exits 0 on SIGTERM.
 * Without DATABASE_URL it runs its own PostgreSQL server in EMBEDDED_DB_DIR.
 */
async function stop(server: ServerProcess): Promise<number | null> {
  server.child.kill('SIGTERM');
  return server.exited;
}

/** pid of the PostgreSQL server running on the data directory, if any */
function postmaster(dir: string): number | undefined {
  try {
    const pid = Number(readFileSync(path.join(dir, 'pgdata', 'postmaster.pid'), 'utf8').split('\n')[0]);
    process.kill(pid, 0);
    return pid;
  } catch {
    return undefined;
  }
}

async function createEventWithCli(env: NodeJS.ProcessEnv, name: string) {
  const args = [
    'event:create',
    '--name',
    name,
    '--location',
    'Lyon',
    '--start',
    '2027-05-01T10:00:00Z',
    '--end',
    '2027-05-02T18:00:00Z',
  ];
  const result = await runTs('src/cli.ts', args, env);
  return { ...result, slug: result.stdout.trim().split('\n').pop()! };
}

async function eventName(server: ServerProcess, slug: string): Promise<string | undefined> {
  const res = await fetch(`http://127.0.0.1:${server.port}/api/events/${slug}`);
  return res.ok ? ((await res.json()) as { data: { name: string } }).data.name : undefined;
}

describe('server on the embedded PostgreSQL server (no DATABASE_URL)', () => {
  // Like the default .data/postgres: a data directory whose parent does not exist yet.
  const root = mkdtempSync(path.join(os.tmpdir(), 'wcs-embedded-'));
  chmodSync(root, 0o755);
  const dir = path.join(root, 'data', 'postgres');
  const env = childEnv({ EMBEDDED_DB_DIR: dir });
  delete env.DATABASE_URL;

  afterAll(async () => {
    // A failed test may leave the server running: stop it before removing its directory.
    const pid = postmaster(dir);
    if (pid) process.kill(pid, 'SIGQUIT');
    for (let i = 0; i < 50 && postmaster(dir); i++) await new Promise((r) => setTimeout(r, 100));
    rmSync(root, { recursive: true, force: true });
  });

  it('creates the cluster at the first start, is healthy, keeps the password in a mode-600 file, and stops its PostgreSQL on SIGTERM', async () => {
    const server = await startServer(env);
    const health = await waitForHealth(server);
    expect(health.body.data).toMatchObject({ status: 'ok', databaseKind: 'embedded' });
    expect(statSync(path.join(dir, 'password')).mode & 0o777).toBe(0o600);
    expect(postmaster(dir)).toBeDefined();

    expect(await stop(server)).toBe(0);
    expect(server.output()).toMatch(/applied [1-9]\d* migration\(s\)/);
    expect(server.output()).toMatch(/ready in \d+ ms \(embedded PostgreSQL 18\.\d+, new data directory\)/);
    expect(server.output()).toContain('shutdown complete');
    expect(postmaster(dir)).toBeUndefined();
  }, 120000);

  it('lets the CLI create an event while the service runs, and refuses a second service on the same directory', async () => {
    const server = await startServer(env);
    await waitForHealth(server);
    try {
      const cli = await createEventWithCli(env, 'CLI beside the service');
      expect(cli.code).toBe(0);
      expect(await eventName(server, cli.slug)).toBe('CLI beside the service');

      const second = await startServer(env);
      expect(await second.exited).toBe(1);
      expect(second.output()).toMatch(/The embedded database in .* is in use by another service \(process \d+\)/);
      expect((await waitForHealth(server)).body.data.status).toBe('ok');
    } finally {
      expect(await stop(server)).toBe(0);
    }
    expect(server.output()).toContain('database schema is up to date');
  }, 120000);

  it('after SIGKILL of the service, the next start adopts the orphaned PostgreSQL and is healthy with the data intact', async () => {
    const first = await startServer(env);
    await waitForHealth(first);
    const cli = await createEventWithCli(env, 'Survives a crash');
    expect(cli.code).toBe(0);
    // The service's Node process, which recorded itself as the owner of the server.
    const servicePid = (JSON.parse(readFileSync(path.join(dir, 'owner.json'), 'utf8')) as { pid: number }).pid;
    expect(servicePid).toBe(first.child.pid);
    const orphan = postmaster(dir);
    process.kill(servicePid, 'SIGKILL');
    await first.exited;
    expect(postmaster(dir)).toBe(orphan);

    const second = await startServer(env);
    try {
      expect((await waitForHealth(second)).body.data).toMatchObject({ status: 'ok', databaseKind: 'embedded' });
      expect(await eventName(second, cli.slug)).toBe('Survives a crash');
    } finally {
      expect(await stop(second)).toBe(0);
    }
    expect(second.output()).toContain(`adopted the embedded PostgreSQL server (pid ${orphan})`);
    expect(postmaster(dir)).toBeUndefined();
  }, 120000);

  it('lets the CLI start the server itself when no service runs, and stop it again', async () => {
    expect(postmaster(dir)).toBeUndefined();
    const cli = await createEventWithCli(env, 'CLI alone');
    expect(cli.code).toBe(0);
    expect(postmaster(dir)).toBeUndefined();

    const server = await startServer(env);
    try {
      await waitForHealth(server);
      expect(await eventName(server, cli.slug)).toBe('CLI alone');
    } finally {
      await stop(server);
    }
  }, 120000);

  it('starts when postmaster.pid names a live process that is not PostgreSQL (pid reused after a reboot)', async () => {
    expect(postmaster(dir)).toBeUndefined();
    const other = spawn('sleep', ['120'], { stdio: 'ignore' });
    const pgdata = path.join(dir, 'pgdata');
    writeFileSync(
      path.join(pgdata, 'postmaster.pid'),
      `${other.pid}\n${pgdata}\n1795500000\n5432\n\n127.0.0.1\n  0 0\nready   \n`,
    );
    const server = await startServer(env);
    try {
      expect((await waitForHealth(server)).body.data.status).toBe('ok');
      // That process was left alone (pg_ctl stop would have signalled it).
      expect(other.exitCode ?? other.signalCode).toBeNull();
    } finally {
      expect(await stop(server)).toBe(0);
      other.kill();
    }
  }, 120000);
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
    const first = await startServer(env);
    expect((await waitForHealth(first)).body.data.databaseKind).toBe('postgres');
    expect(await stop(first)).toBe(0);
    expect(first.output()).toMatch(/applied [1-9]\d* migration\(s\)/);

    const second = await startServer(env);
    await waitForHealth(second);
    expect(await stop(second)).toBe(0);
    expect(second.output()).toContain('database schema is up to date');

    const db = new Client({ connectionString: databaseUrlFor(name) });
    await db.connect();
    const { rows } = await db.query('SELECT count(*)::int AS n FROM "Division"');
    await db.end();
    expect(rows[0].n).toBe(6);
  }, 150000);
});

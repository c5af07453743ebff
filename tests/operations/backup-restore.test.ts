import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import supertest from 'supertest';
import { buildApp } from '../../src/app';
import type { Container } from '../../src/container';
import { createTestContainer } from '../helpers/container';
import { childEnv, runTs } from '../helpers/process';
import { useScratchDatabases } from '../helpers/scratch-database';

/**
 * `db:backup` / `db:restore` as an operator runs them (real CLI processes): a round trip through
 * a wipe shows the same data through the API, on an external PostgreSQL and on the embedded default.
 */
const scratchDatabase = useScratchDatabases();
const work = mkdtempSync(path.join(os.tmpdir(), 'wcs-backup-'));
chmodSync(work, 0o755);
afterAll(() => rmSync(work, { recursive: true, force: true }));

const cli = (args: string[], env: NodeJS.ProcessEnv) => runTs('src/cli.ts', args, env, 180000);
const onDatabase = (url: string) => childEnv({ DATABASE_URL: url });

interface Demo {
  slug: string;
  admin: { email: string; password: string };
}

/** What the API shows of the demo event to its admin: the answers must survive a round trip. */
async function apiView(url: string, demo: Demo) {
  const container: Container = createTestContainer({ databaseUrl: url });
  try {
    const request = supertest(buildApp(container));
    const login = await request.post('/api/auth/login').send(demo.admin);
    expect(login.status).toBe(200);
    const auth = `Bearer ${login.body.data.token}`;
    const get = async (p: string) => {
      const res = await request.get(p).set('Authorization', auth);
      expect(res.status).toBe(200);
      return res.body;
    };
    return {
      details: await get(`/api/events/${demo.slug}/details`),
      heats: await get(`/api/events/${demo.slug}/heats/all`),
      runs: await get(`/api/admin/events/${demo.slug}/matching-runs`),
      me: await get('/api/users/me'),
    };
  } finally {
    await container.close();
  }
}

async function seedDemo(env: NodeJS.ProcessEnv): Promise<Demo> {
  const seeded = await cli(['demo:seed'], env);
  expect(seeded.code).toBe(0);
  const result = JSON.parse(seeded.stdout.trim().split('\n').pop()!) as {
    event: { slug: string };
    admin: Demo['admin'];
  };
  return { slug: result.event.slug, admin: result.admin };
}

/** The row lines of a backup file (everything after its header). */
const rowsOf = (file: string) => readFileSync(file, 'utf8').trim().split('\n').slice(1);

describe('db:backup and db:restore on an external PostgreSQL (DATABASE_URL)', () => {
  let url: string;
  let demo: Demo;
  let before: Awaited<ReturnType<typeof apiView>>;
  const file = path.join(work, 'external.jsonl');

  beforeAll(async () => {
    url = await scratchDatabase();
    demo = await seedDemo(onDatabase(url));
    before = await apiView(url, demo);
  }, 240000);

  it('writes a backup file readable only by its owner and prints a JSON summary on stdout', async () => {
    const result = await cli(['db:backup', file], { ...onDatabase(url), LOG_LEVEL: 'info' });
    expect(result.code).toBe(0);
    const summary = JSON.parse(result.stdout);
    expect(summary).toMatchObject({ file, tables: expect.any(Number), migrations: expect.any(Number) });
    expect(summary.rows).toBe(rowsOf(file).length);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // the log line went to stderr
    expect(result.stderr).toContain('"msg":"backup written"');
  }, 120000);

  it('refuses to restore into a database that is not empty, and changes nothing', async () => {
    const result = await cli(['db:restore', file], onDatabase(url));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /The database is not empty \(\d+ tables\): db:restore writes into an empty database; add --force/,
    );
    expect(await apiView(url, demo)).toEqual({ ...before, me: expect.anything() });
  }, 120000);

  it('restores into an empty database: the API shows the same data', async () => {
    const fresh = await scratchDatabase();
    const result = await cli(['db:restore', file], onDatabase(fresh));
    expect(result.code).toBe(0);
    const after = await apiView(fresh, demo);
    expect(after.details).toEqual(before.details);
    expect(after.heats).toEqual(before.heats);
    expect(after.runs).toEqual(before.runs);
    expect(after.me.data.email).toBe(before.me.data.email);
  }, 180000);

  it('wipes and restores with --force: the API shows the same data, and new rows get new ids', async () => {
    const result = await cli(['db:restore', file, '--force'], onDatabase(url));
    expect(result.code).toBe(0);
    const after = await apiView(url, demo);
    expect(after.details).toEqual(before.details);
    expect(after.heats).toEqual(before.heats);
    // the sequences moved past the restored ids: a new account does not collide
    const created = await cli(
      ['user:create', '--email', 'after.restore@example.com', '--username', 'after_restore'],
      onDatabase(url),
    );
    expect(created.code).toBe(0);
    expect(JSON.parse(created.stdout).id).toBeGreaterThan(41);
  }, 180000);

  it('takes one consistent snapshot while the service keeps writing', async () => {
    const db = new Client({ connectionString: url });
    await db.connect();
    let writing = true;
    const writer = (async () => {
      for (let i = 0; writing; i++) {
        await db.query(
          `INSERT INTO "ActivityLog" (category, action, success) VALUES ('admin', 'backup_probe_${i}', true)`,
        );
      }
    })();
    const busy = path.join(work, 'busy.jsonl');
    try {
      const result = await cli(['db:backup', busy], onDatabase(url));
      expect(result.code).toBe(0);
    } finally {
      writing = false;
      await writer;
      await db.end();
    }
    const [headerLine, ...rows] = readFileSync(busy, 'utf8').trim().split('\n');
    const header = JSON.parse(headerLine) as { tables: Record<string, number> };
    const counted: Record<string, number> = {};
    for (const row of rows) {
      const table = (JSON.parse(row) as { t: string }).t;
      counted[table] = (counted[table] ?? 0) + 1;
    }
    // the counts of the header and the rows come from the same snapshot
    for (const [table, count] of Object.entries(header.tables)) expect(counted[table] ?? 0).toBe(count);
  }, 120000);

  it('refuses to back up a database the service never started on, with one clear line', async () => {
    const result = await cli(['db:backup', path.join(work, 'nothing.jsonl')], onDatabase(await scratchDatabase()));
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe(
      'Error: The database holds no data of this service yet (the service never started on it): nothing to back up',
    );
  }, 120000);

  it('refuses a file that is not a backup', async () => {
    const bogus = path.join(work, 'bogus.jsonl');
    writeFileSync(bogus, '{"hello":"world"}\n');
    const result = await cli(['db:restore', bogus], onDatabase(await scratchDatabase()));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('is not a backup of this service');
  }, 120000);

  it('refuses a backup made by a newer version (a migration unknown here)', async () => {
    const [headerLine, ...rows] = readFileSync(file, 'utf8').trim().split('\n');
    const header = JSON.parse(headerLine) as { migrations: string[] };
    header.migrations.push('29991231000000_from_the_future');
    const newer = path.join(work, 'newer.jsonl');
    writeFileSync(newer, [JSON.stringify(header), ...rows].join('\n'));
    const result = await cli(['db:restore', newer], onDatabase(await scratchDatabase()));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'The backup was made by a newer version of the service (migration 29991231000000_from_the_future is unknown here)',
    );
  }, 120000);
});

describe('db:backup and db:restore on the embedded default (no DATABASE_URL)', () => {
  const root = path.join(work, 'embedded');
  const embeddedEnv = () => {
    const env = childEnv({ EMBEDDED_DB_DIR: path.join(root, 'postgres'), DATA_DIR: root });
    delete env.DATABASE_URL;
    return env;
  };

  afterAll(async () => {
    // A failed test may leave the server running: stop it before the directory goes.
    try {
      const pid = Number(readFileSync(path.join(root, 'postgres', 'pgdata', 'postmaster.pid'), 'utf8').split('\n')[0]);
      process.kill(pid, 'SIGQUIT');
    } catch {
      /* not running */
    }
  });

  it('restores a backup of an external database into a new embedded one, and backs it up again row for row', async () => {
    const source = await scratchDatabase();
    await seedDemo(onDatabase(source));
    const original = path.join(work, 'for-embedded.jsonl');
    expect((await cli(['db:backup', original], onDatabase(source))).code).toBe(0);

    const restored = await cli(['db:restore', original], embeddedEnv());
    expect(restored.code).toBe(0);
    const again = path.join(work, 'from-embedded.jsonl');
    const backup = await cli(['db:backup', again], embeddedEnv());
    expect(backup.code).toBe(0);
    expect(rowsOf(again)).toEqual(rowsOf(original));
    const header = JSON.parse(readFileSync(again, 'utf8').split('\n')[0]) as { server: string };
    expect(header.server).toMatch(/^18\./);
  }, 300000);
});

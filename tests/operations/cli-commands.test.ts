import supertest from 'supertest';
import { buildApp } from '../../src/app';
import { prisma } from '../helpers/db';
import { createTestContainer } from '../helpers/container';
import { childEnv, runTs } from '../helpers/process';
import { useScratchDatabases } from '../helpers/scratch-database';

/** The operator's first hour without the web app: the CLI's own commands, as real processes. */
const scratchDatabase = useScratchDatabases();
const cli = (args: string[], env: NodeJS.ProcessEnv = childEnv()) => runTs('src/cli.ts', args, env, 180000);
const unique = () => `${Date.now()}${Math.floor(Math.random() * 1000)}`;

describe('npm run cli -- --help', () => {
  it('lists every command on stdout and exits 0', async () => {
    const result = await cli(['--help']);
    expect(result.code).toBe(0);
    for (const command of [
      'user:create',
      'user:promote',
      'user:demote',
      'event:create',
      'matching:run',
      'demo:seed',
      'db:backup',
      'db:restore',
    ]) {
      expect(result.stdout).toContain(command);
    }
  });
});

describe('user:create', () => {
  it('creates a verified admin with the password of USER_PASSWORD, who can sign in at once', async () => {
    const id = unique();
    const email = `first.admin${id}@example.com`;
    const result = await cli(
      ['user:create', '--email', email, '--username', `first_admin_${id}`, '--admin'],
      childEnv({ USER_PASSWORD: 'a-long-admin-password' }),
    );
    expect(result.code).toBe(0);
    const printed = JSON.parse(result.stdout);
    expect(printed).toEqual({ id: expect.any(Number), username: `first_admin_${id}`, email, isAdmin: true });
    const row = await prisma.user.findUniqueOrThrow({ where: { email } });
    expect(row).toMatchObject({ isAdmin: true, emailVerified: true });
    const audit = await prisma.activityLog.findFirst({ where: { action: 'user_create', resource: `user:${row.id}` } });
    expect(audit).toMatchObject({ category: 'admin', method: 'cli' });

    const container = createTestContainer();
    try {
      const login = await supertest(buildApp(container))
        .post('/api/auth/login')
        .send({ email, password: 'a-long-admin-password' });
      expect(login.status).toBe(200);
      expect(login.body.data.user.isAdmin).toBe(true);
    } finally {
      await container.close();
    }
  });

  it('generates and prints a password when USER_PASSWORD is not set', async () => {
    const id = unique();
    const env = childEnv();
    delete env.USER_PASSWORD;
    const result = await cli(['user:create', '--email', `dancer${id}@example.com`, '--username', `dancer_${id}`], env);
    expect(result.code).toBe(0);
    const printed = JSON.parse(result.stdout);
    expect(printed.isAdmin).toBe(false);
    expect(printed.password).toMatch(/^[\w-]{16}$/);
  });

  it('refuses an invalid e-mail and a short password with the registration rules, exit 1', async () => {
    const result = await cli(
      ['user:create', '--email', 'not-an-address', '--username', `x_${unique()}`],
      childEnv({ USER_PASSWORD: '123' }),
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('--email: Email must be a valid email address');
    expect(result.stderr).toContain('USER_PASSWORD:');
    expect(result.stdout).toBe('');
  });

  it('refuses an e-mail address that is taken', async () => {
    const id = unique();
    const args = ['user:create', '--email', `twice${id}@example.com`, '--username', `twice_${id}`];
    expect((await cli(args)).code).toBe(0);
    const again = await cli([...args.slice(0, 3), '--username', `twice_b_${id}`]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('Error: Email already registered');
  });
});

describe('output streams', () => {
  it('writes log lines to stderr and only the result to stdout, even at LOG_LEVEL=debug', async () => {
    const result = await cli(
      [
        'event:create',
        '--name',
        'Streams',
        '--location',
        'Oslo',
        '--start',
        '2027-06-01T10:00:00Z',
        '--end',
        '2027-06-02T10:00:00Z',
      ],
      childEnv({ LOG_LEVEL: 'debug' }),
    );
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^Created event "Streams"/);
    expect(lines[1]).toMatch(/^[A-Za-z0-9]{12,50}$/);
    expect(result.stderr).toContain('"msg":"database schema is up to date"');
  });
});

describe('demo:seed', () => {
  it('makes an admin, an event with 40 checked-in dancers from several cities, heats and a matching run, and prints how to sign in', async () => {
    const url = await scratchDatabase();
    const result = await cli(['demo:seed'], childEnv({ DATABASE_URL: url }));
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('admin:   demo-admin@example.com / ');
    expect(result.stdout).toContain('Sign in: POST /api/auth/login');
    const summary = JSON.parse(result.stdout.trim().split('\n').pop()!);

    const container = createTestContainer({ databaseUrl: url });
    try {
      const request = supertest(buildApp(container));
      const login = await request.post('/api/auth/login').send(summary.admin);
      expect(login.status).toBe(200);
      expect(login.body.data.user.isAdmin).toBe(true);
      const auth = `Bearer ${login.body.data.token}`;
      const details = await request.get(`/api/events/${summary.event.slug}/details`).set('Authorization', auth);
      expect(details.body.data.stats.totalParticipants).toBe(40);
      const dancers = await container.prisma.user.findMany({
        where: { participations: { some: {} } },
        select: { city: true },
      });
      expect(new Set(dancers.map((d) => d.city)).size).toBeGreaterThanOrEqual(4);
      const heats = await request.get(`/api/events/${summary.event.slug}/heats/all`).set('Authorization', auth);
      expect(heats.body.count).toBe(40);
      const runs = await request
        .get(`/api/admin/events/${summary.event.slug}/matching-runs`)
        .set('Authorization', auth);
      expect(runs.body.data[0]).toMatchObject({ id: summary.matching.runId, status: 'success' });
      expect(runs.body.data[0].heatsAssigned).toBeGreaterThan(0);

      const dancer = await request
        .post('/api/auth/login')
        .send({ email: summary.dancers.example, password: summary.dancers.password });
      expect(dancer.status).toBe(200);
    } finally {
      await container.close();
    }
  }, 240000);

  it('refuses to run a second time on the same database', async () => {
    const url = await scratchDatabase();
    expect((await cli(['demo:seed'], childEnv({ DATABASE_URL: url }))).code).toBe(0);
    const again = await cli(['demo:seed'], childEnv({ DATABASE_URL: url }));
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('The demo data exists already (demo-admin@example.com)');
  }, 240000);

  it('refuses to run in production', async () => {
    const url = await scratchDatabase();
    const result = await cli(
      ['demo:seed'],
      childEnv({ DATABASE_URL: url, NODE_ENV: 'production', SMTP_HOST: 'smtp.example.com' }),
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('demo:seed refuses to run in production');
    const db = createTestContainer({ databaseUrl: url });
    try {
      expect(await db.prisma.user.count()).toBe(0);
    } finally {
      await db.close();
    }
  }, 120000);
});

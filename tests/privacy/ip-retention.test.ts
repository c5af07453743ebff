import { randomUUID } from 'node:crypto';
import PgBoss from 'pg-boss';
import { loadConfig } from '../../src/config/index';
import { createLogger } from '../../src/lib/logger';
import { IpPurgeSchedule } from '../../src/modules/privacy/ip-retention.job';
import { IpRetentionService } from '../../src/modules/privacy/ip-retention.service';
import { systemActor } from '../../src/lib/actor';
import { testConfig, testContainer, withTestContainer } from '../helpers/container';
import { prisma } from '../helpers/db';
import { createAdmin, createUser } from '../helpers/factories';
import { childEnv, runTs } from '../helpers/process';
import { api } from '../helpers/server';
import { until } from '../helpers/server-process';

const DAY = 24 * 60 * 60 * 1000;
const system = systemActor('test');

const entryAt = (createdAt: Date, ip = '203.0.113.50') =>
  prisma.activityLog.create({ data: { category: 'auth', action: 'privacy_test', ip, createdAt } });
const ipOf = async (id: number) => (await prisma.activityLog.findUniqueOrThrow({ where: { id } })).ip;

describe('retention of client addresses', () => {
  it('clears the ip of entries older than the retention and keeps the entry and younger addresses', async () => {
    const old = await entryAt(new Date(Date.now() - 31 * DAY));
    const young = await entryAt(new Date(Date.now() - 29 * DAY));
    const cleared = await withTestContainer({ privacy: { activityLogIpRetentionDays: 30 } }, (c) =>
      c.ipRetention.purge(system),
    );
    expect(cleared).toBeGreaterThanOrEqual(1);
    expect(await ipOf(old.id)).toBeNull();
    expect(await prisma.activityLog.findUniqueOrThrow({ where: { id: old.id } })).toMatchObject({
      action: 'privacy_test',
      category: 'auth',
    });
    expect(await ipOf(young.id)).toBe('203.0.113.50');
  });

  it('is idempotent: a second purge clears nothing more', async () => {
    await entryAt(new Date(Date.now() - 40 * DAY));
    await withTestContainer({ privacy: { activityLogIpRetentionDays: 30 } }, async (c) => {
      expect(await c.ipRetention.purge(system)).toBeGreaterThanOrEqual(1);
      expect(await c.ipRetention.purge(system)).toBe(0);
    });
  });

  it("GET /admin/privacy shows the retention and this instance's last purge (null until the first)", async () => {
    const admin = await createAdmin();
    await withTestContainer({ privacy: { activityLogIpRetentionDays: 12 } }, async (c) => {
      const before = await api(c).get('/api/admin/privacy').set('Authorization', admin.auth);
      expect(before.status).toBe(200);
      expect(before.body).toEqual({
        success: true,
        data: { activityLogIpRetentionDays: 12, lastIpPurgeAt: null, lastIpPurgeCount: null },
      });
      await entryAt(new Date(Date.now() - 13 * DAY));
      const count = await c.ipRetention.scheduledPurge(system);
      const after = await api(c).get('/api/admin/privacy').set('Authorization', admin.auth);
      expect(after.body.data).toEqual({
        activityLogIpRetentionDays: 12,
        lastIpPurgeAt: expect.any(String),
        lastIpPurgeCount: count,
      });
      expect(count).toBeGreaterThanOrEqual(1);
    });
  });

  it('GET /admin/privacy answers 403 to a non-admin and 401 without a token', async () => {
    const u = await createUser();
    const forbidden = await api().get('/api/admin/privacy').set('Authorization', u.auth);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body).toMatchObject({ code: 'ADMIN_REQUIRED' });
    expect((await api().get('/api/admin/privacy')).status).toBe(401);
  });

  it('runs at start in the background and then as a daily pg-boss cron job that purges when it fires', async () => {
    const queue = `privacy_test_${randomUUID().replaceAll('-', '')}`;
    const url = testConfig().databaseUrl as string;
    const audit = testContainer().audit;
    const retention = new IpRetentionService({ audit, clock: { now: () => new Date() }, retentionDays: 30 });
    const schedule = new IpPurgeSchedule({ retention, logger: createLogger('silent'), connectionString: url, queue });
    const probe = new PgBoss({ connectionString: url, max: 1, schedule: false, supervise: false });
    try {
      schedule.start();
      await until(async () => retention.status(system).lastIpPurgeAt !== null);
      // pg-boss creates its schema on its first start: until then the table does not exist
      const scheduled = () =>
        prisma.$queryRawUnsafe<unknown[]>('SELECT 1 FROM pgboss.schedule WHERE name = $1', queue).then(
          (r) => r.length === 1,
          () => false,
        );
      await until(scheduled);
      const [row] = await prisma.$queryRawUnsafe<{ cron: string }[]>(
        'SELECT cron FROM pgboss.schedule WHERE name = $1',
        queue,
      );
      expect(row.cron).toBe('17 3 * * *');

      const old = await entryAt(new Date(Date.now() - 45 * DAY));
      const first = retention.status(system).lastIpPurgeAt!;
      await probe.start();
      await probe.send(queue, {});
      await until(async () => retention.status(system).lastIpPurgeAt!.getTime() > first.getTime());
      expect(await ipOf(old.id)).toBeNull();
    } finally {
      await probe.stop({ graceful: false, wait: true }).catch(() => undefined);
      await schedule.stop();
    }
  });
});

describe('privacy:purge-ips', () => {
  it('counts the retention back from --as-of and prints the number cleared on the last line', async () => {
    const ancient = await entryAt(new Date('2001-01-01T00:00:00Z'));
    const later = await entryAt(new Date('2001-01-20T00:00:00Z'));
    const result = await runTs(
      'src/cli.ts',
      ['privacy:purge-ips', '--as-of', '2001-01-15T00:00:00Z'],
      childEnv({ ACTIVITY_LOG_IP_RETENTION_DAYS: '10' }),
    );
    expect(result.code).toBe(0);
    const last = result.stdout.trim().split('\n').pop();
    expect(last).toMatch(/^\d+$/);
    expect(Number(last)).toBeGreaterThanOrEqual(1);
    expect(await ipOf(ancient.id)).toBeNull();
    expect(await ipOf(later.id)).toBe('203.0.113.50');
  });

  it('refuses an --as-of that is not a timestamp with exit code 1 and changes nothing', async () => {
    const ancient = await entryAt(new Date('2000-06-01T00:00:00Z'));
    const result = await runTs('src/cli.ts', ['privacy:purge-ips', '--as-of', 'yesterday'], childEnv());
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('--as-of must be an ISO 8601 timestamp');
    expect(await ipOf(ancient.id)).toBe('203.0.113.50');
  });
});

describe('privacy configuration', () => {
  const base = { NODE_ENV: 'test', JWT_SECRET: 'x'.repeat(32), PORT: '4100' };

  it('refuses an ACTIVITY_LOG_IP_RETENTION_DAYS outside 1-3650 naming the variable', () => {
    for (const value of ['0', '3651', 'thirty', '-5']) {
      expect(() => loadConfig({ ...base, ACTIVITY_LOG_IP_RETENTION_DAYS: value })).toThrow(
        /ACTIVITY_LOG_IP_RETENTION_DAYS/,
      );
    }
    expect(loadConfig({ ...base }).privacy.activityLogIpRetentionDays).toBe(30);
    expect(loadConfig({ ...base, ACTIVITY_LOG_IP_RETENTION_DAYS: '3650' }).privacy.activityLogIpRetentionDays).toBe(
      3650,
    );
  });

  it('takes PUBLIC_URL without its trailing slash, defaults to http://localhost:<PORT> and refuses a non-http URL', () => {
    expect(loadConfig({ ...base }).publicUrl).toBe('http://localhost:4100');
    expect(loadConfig({ ...base, PUBLIC_URL: 'https://wcs.example.org/' }).publicUrl).toBe('https://wcs.example.org');
    for (const value of ['not a url', 'ftp://files.example.org', 'redis://cache:6379']) {
      expect(() => loadConfig({ ...base, PUBLIC_URL: value })).toThrow(/PUBLIC_URL/);
    }
  });
});

import type { Event } from '../../src/generated/prisma/client';
import { buildApp } from '../../src/app';
import type { Container } from '../../src/container';
import { warmUp, warmUpPaths, type WarmUpSource } from '../../src/lib/warm-up';
import { createTestContainer } from '../helpers/container';
import { prisma } from '../helpers/db';
import { createEvent, createUser, joinEvent, type TestUser } from '../helpers/factories';
import { api } from '../helpers/server';
import { spawnServer, type ServerProcess } from '../helpers/server-process';

/** Makes the event the busiest of the run's database while `fn` runs (one database serves every test file). */
async function asBusiest<T>(event: Event, fn: () => Promise<T>): Promise<T> {
  await prisma.event.update({ where: { id: event.id }, data: { participantsCount: 2_000_000_000 } });
  try {
    return await fn();
  } finally {
    await prisma.event.update({ where: { id: event.id }, data: { participantsCount: event.participantsCount } });
  }
}

/**
 * WARMUP_MS (docs/event-day.md "A warm-up before listening"): before the service listens, the
 * hot reads of participants of the busiest current event are sent through its own app, on a
 * loopback listener of its own, so that the first polls after a start find a warm process.
 * Its requests are not clients: the rate limits, the request log and the metrics leave them out.
 */
describe('start-up warm-up', () => {
  let event: Event;
  let dancers: TestUser[];
  let suspended: TestUser;
  let container: Container | undefined;

  beforeAll(async () => {
    event = await createEvent({ withChatRoom: true });
    dancers = await Promise.all([1, 2, 3, 4].map(() => createUser()));
    suspended = await createUser();
    await prisma.user.update({ where: { id: suspended.user.id }, data: { suspendedAt: new Date() } });
    for (const d of [...dancers, suspended]) await joinEvent(d.user, event);
    event = await prisma.event.findUniqueOrThrow({ where: { id: event.id } });
  });

  afterEach(async () => {
    await container?.close();
    container = undefined;
  });

  it('reads as participants of the busiest current event who are not suspended, at most the limit', async () => {
    container = createTestContainer();
    const callers = await asBusiest(event, () => container!.events.warmUpCallers(3));
    expect(callers).toEqual({ slug: event.slug, userIds: dancers.slice(0, 3).map((d) => d.user.id) });
    const all = await asBusiest(event, () => container!.events.warmUpCallers(200));
    expect(all?.userIds).toEqual(dancers.map((d) => d.user.id));
  });

  it('sends every hot read as those participants, all answered 200, until its time is up', async () => {
    container = createTestContainer();
    const c = container;
    // 3 s: a cold process's first reads went at ~40 a second here, so the 28 first reads take < 1 s
    const report = await asBusiest(event, () => warmUp(buildApp(c), c, { ms: 3000, callers: 200, concurrency: 4 }));
    expect(report.stoppedBy).toBeUndefined();
    expect(report.callers).toBe(dancers.length);
    expect(report.event).toBe(event.slug);
    // every participant's first read of each path, then the same again
    expect(report.reads).toBeGreaterThan(dancers.length * warmUpPaths(event.slug).length);
    expect(report.ms).toBeGreaterThanOrEqual(3000);
  });

  it('is not counted by the rate limits: a client still has its whole allowance afterwards', async () => {
    container = createTestContainer({ rateLimit: { enabled: true, general: { max: 2, windowMs: 60_000 } } });
    const c = container;
    const report = await asBusiest(event, () => warmUp(buildApp(c), c, { ms: 200, callers: 200, concurrency: 4 }));
    expect(report.reads).toBeGreaterThan(2);
    expect(report.stoppedBy).toBeUndefined();
    expect((await api(c).get('/api/health')).status).toBe(200);
    expect((await api(c).get('/api/health')).status).toBe(200);
    expect((await api(c).get('/api/health')).status).toBe(429);
  });

  it('stops at the first answer that is not 200 and says which', async () => {
    container = createTestContainer();
    const c = container;
    const source: WarmUpSource = {
      events: { warmUpCallers: async () => ({ slug: event.slug, userIds: [dancers[0].user.id] }) },
      tokens: { signFor: async () => 'not.a.token' },
    };
    const report = await warmUp(buildApp(c), source, { ms: 5_000, callers: 200, concurrency: 2 });
    expect(report.reads).toBe(0);
    expect(report.stoppedBy).toBe('GET /api/events answered 401');
    expect(report.ms).toBeLessThan(5_000);
  });

  it('does nothing without a participant to read as, or with WARMUP_MS 0 (the default)', async () => {
    container = createTestContainer();
    const c = container;
    const nobody: WarmUpSource = { events: { warmUpCallers: async () => undefined }, tokens: c.tokens };
    expect(await warmUp(buildApp(c), nobody, { ms: 1_000, callers: 200, concurrency: 2 })).toMatchObject({
      reads: 0,
      callers: 0,
    });
    expect(c.config.warmUp.ms).toBe(0);
    expect(await warmUp(buildApp(c), c, c.config.warmUp)).toEqual({ reads: 0, ms: 0, callers: 0 });
  });

  describe('the real server process with WARMUP_MS', () => {
    let server: ServerProcess | undefined;
    /** every process the tests started: each test's server outlives the test unless killed here */
    const spawned: ServerProcess[] = [];

    afterAll(() => {
      for (const s of spawned) if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL');
    });

    it('warms up before it listens, logging one line instead of a line per read', async () => {
      await asBusiest(event, async () => {
        server = await spawnServer({ DATABASE_URL: process.env.DATABASE_URL, WARMUP_MS: '1000' });
        spawned.push(server);
        await server.waitForOutput(/listening on/);
      });
      const output = server!.output();
      // the event it read is named: a bench whose event was not the busiest current one showed it (docs/event-day.md)
      const warmed = /warmed up: (\d+) reads of (\S+) as (\d+) participants in (\d+) ms/.exec(output);
      expect(warmed).not.toBeNull();
      expect(Number(warmed![1])).toBeGreaterThan(0);
      expect(warmed![2]).toBe(event.slug);
      expect(Number(warmed![3])).toBe(dancers.length);
      expect(output.indexOf('warmed up')).toBeLessThan(output.indexOf('listening on'));
      expect(output).not.toContain('request completed');
      const health = await fetch(`${server!.url}/api/health`);
      expect(health.status).toBe(200);
    }, 60_000);

    it('ends the warm-up at a SIGTERM and exits 0 without waiting for its time', async () => {
      const started = Date.now();
      const exited = await asBusiest(event, async () => {
        const s = await spawnServer({ DATABASE_URL: process.env.DATABASE_URL, WARMUP_MS: '60000' });
        server = s;
        spawned.push(s);
        await s.waitForOutput(/warming up for 60000 ms/);
        await new Promise((r) => setTimeout(r, 500));
        s.child.kill('SIGTERM');
        return s.exited;
      });
      expect(exited).toEqual({ code: 0, signal: null });
      // the warm-up's 60 s were cut short
      expect(Date.now() - started).toBeLessThan(40_000);
      expect(server!.output()).toMatch(/warmed up: \d+ reads/);
    }, 60_000);
  });
});

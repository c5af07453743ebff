import { Writable } from 'node:stream';
import pino from 'pino';
import supertest from 'supertest';
import { buildApp } from '../../src/app';
import type { Container } from '../../src/container';
import { createTestContainer } from '../helpers/container';
import { useScratchDatabases } from '../helpers/scratch-database';
import { api } from '../helpers/server';

const containers: Container[] = [];
afterEach(async () => {
  await Promise.all(containers.splice(0).map((c) => c.close()));
});
const scratchDatabase = useScratchDatabases();

function appOf(
  overrides: Parameters<typeof createTestContainer>[0] = {},
  parts: Parameters<typeof createTestContainer>[1] = {},
) {
  const container = createTestContainer(overrides, parts);
  containers.push(container);
  return { container, request: supertest(buildApp(container)) };
}

const unreachable = { databaseUrl: 'postgresql://postgres@127.0.0.1:1/nowhere' };
const notReady = (checks: Record<string, string>) => ({
  success: false,
  error: 'Service temporarily unavailable',
  code: 'SERVICE_UNAVAILABLE',
  data: { status: 'not ready', checks },
});

describe('GET /api/health/live', () => {
  it('answers 200 while the process runs', async () => {
    const res = await api().get('/api/health/live');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { status: 'ok' } });
  });

  it('answers 200 even when the database does not answer (an outage never restarts healthy processes)', async () => {
    const { request } = appOf(unreachable);
    const res = await request.get('/api/health/live');
    expect(res.status).toBe(200);
    expect(res.body.data.status).toBe('ok');
  });
});

describe('GET /api/health/ready', () => {
  it('answers 200 when the database answers and every migration is applied', async () => {
    const res = await api().get('/api/health/ready');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: { status: 'ready', checks: { database: 'up', migrations: 'applied', shutdown: 'no' } },
    });
  });

  it('answers 503 naming the database when it does not answer', async () => {
    const { request } = appOf(unreachable);
    const res = await request.get('/api/health/ready');
    expect(res.status).toBe(503);
    expect(res.body).toEqual(notReady({ database: 'down', migrations: 'unknown', shutdown: 'no' }));
  });

  it('answers 503 naming the migrations on a database that has not been migrated', async () => {
    const { request } = appOf({ databaseUrl: await scratchDatabase() });
    const res = await request.get('/api/health/ready');
    expect(res.status).toBe(503);
    expect(res.body).toEqual(notReady({ database: 'up', migrations: 'pending', shutdown: 'no' }));
  });

  it('answers 503 once the shutdown has begun', async () => {
    const { container, request } = appOf();
    container.instance.shuttingDown = true;
    const res = await request.get('/api/health/ready');
    expect(res.status).toBe(503);
    expect(res.body).toEqual(notReady({ database: 'not checked', migrations: 'unknown', shutdown: 'in progress' }));
  });
});

describe('GET /api/health', () => {
  const up = { success: true, data: { status: 'ok', database: 'up', databaseKind: 'postgres' } };

  it('answers up from the round trip the cached reads share, taking no pool connection, once the read cache listens', async () => {
    const { container, request } = appOf();
    expect(await container.readCache!.start()).toBe(true);
    const pool = container.database.poolStats().queries;
    const fences = container.readCache!.stats().fencesBack;
    const res = await request.get('/api/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual(up);
    expect(container.database.poolStats().queries).toBe(pool);
    expect(container.readCache!.stats().fencesBack).toBeGreaterThan(fences);
  });

  it('asks the pool when there is no read cache', async () => {
    const { container, request } = appOf({}, { readCache: false });
    const pool = container.database.poolStats().queries;
    const res = await request.get('/api/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual(up);
    expect(container.database.poolStats().queries).toBe(pool + 1);
  });

  it('answers 503 database down when the database does not answer', async () => {
    const { request } = appOf(unreachable);
    const res = await request.get('/api/health');
    expect(res.status).toBe(503);
    expect(res.body).toEqual({
      success: false,
      error: 'Service temporarily unavailable',
      code: 'SERVICE_UNAVAILABLE',
      data: { status: 'degraded', database: 'down', databaseKind: 'postgres' },
    });
  });
});

describe('request log of the probes', () => {
  function appWithLog() {
    const lines: { level: number; req?: { url: string } }[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    const { request } = appOf({}, { logger: pino({ level: 'info' }, sink) });
    return { request, logged: (url: string) => lines.filter((l) => l.req?.url === url) };
  }

  it('writes no info line for a successful probe', async () => {
    const { request, logged } = appWithLog();
    for (const url of ['/api/health', '/api/health/live', '/api/health/ready']) await request.get(url).expect(200);
    await request.get('/api/divisions').expect(200);
    expect(logged('/api/health')).toEqual([]);
    expect(logged('/api/health/live')).toEqual([]);
    expect(logged('/api/health/ready')).toEqual([]);
    // an ordinary request is still logged at info (30)
    expect(logged('/api/divisions').map((l) => l.level)).toEqual([30]);
  });
});

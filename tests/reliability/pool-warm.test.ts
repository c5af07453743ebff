import { Client } from 'pg';
import { createTestContainer } from '../helpers/container';
import type { Container } from '../../src/container';

/** The backends of the test database that are not this test's own observer connection. */
async function serviceConnections(observer: Client): Promise<number> {
  const { rows } = await observer.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`,
  );
  return rows[0].n;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * DATABASE_POOL_MIN and DATABASE_POOL_IDLE_MS (docs/operations.md): the kept connections are
 * opened before the service listens (src/server.ts calls `database.warm()`) and stay open when
 * idle, so the first burst of reads after a quiet spell does not wait for PostgreSQL to fork
 * backends; the connections above them close after the idle time, as before.
 */
describe('database pool: kept connections', () => {
  let container: Container | undefined;
  let observer: Client;

  beforeAll(async () => {
    observer = new Client({ connectionString: process.env.DATABASE_URL });
    await observer.connect();
  });

  afterEach(async () => {
    await container?.close();
    container = undefined;
  });

  afterAll(async () => {
    await observer.end();
  });

  it('warm opens DATABASE_POOL_MIN connections, which stay open past the idle time', async () => {
    const before = await serviceConnections(observer);
    container = createTestContainer({ databasePool: { size: 5, min: 3, idleMs: 100 } });
    await expect(container.database.warm()).resolves.toBe(3);
    expect(container.database.poolStats()).toMatchObject({ total: 3, idle: 3 });
    expect(await serviceConnections(observer)).toBeGreaterThanOrEqual(before + 3);
    await sleep(600);
    expect(container.database.poolStats().total).toBe(3);
  });

  it('connections above DATABASE_POOL_MIN close after DATABASE_POOL_IDLE_MS unused', async () => {
    container = createTestContainer({ databasePool: { size: 5, min: 1, idleMs: 100 } });
    const db = container.database;
    // four statements at once open four connections
    await Promise.all([1, 2, 3, 4].map(() => db.prisma.$queryRaw`SELECT 1 FROM pg_sleep(0.05)`));
    expect(db.poolStats().total).toBe(4);
    await sleep(600);
    expect(db.poolStats().total).toBe(1);
  });

  it('without DATABASE_POOL_MIN warm opens nothing and idle connections close (the default)', async () => {
    container = createTestContainer({ databasePool: { size: 5, min: 0, idleMs: 100 } });
    await expect(container.database.warm()).resolves.toBe(0);
    await container.database.ping();
    expect(container.database.poolStats().total).toBe(1);
    await sleep(600);
    expect(container.database.poolStats().total).toBe(0);
  });
});

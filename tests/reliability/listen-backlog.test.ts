import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { spawnServer, type ServerProcess } from '../helpers/server-process';

/** The accept queue of the listening socket at `port`, as the kernel reports it (`ss`: Send-Q of a LISTEN socket). */
function acceptQueueLimit(port: number): number {
  const line = execFileSync('ss', ['-ltnH', `sport = :${port}`], { encoding: 'utf8' })
    .trim()
    .split('\n')[0];
  const [, , sendQ] = line.trim().split(/\s+/);
  return Number(sendQ);
}

const somaxconn = Number(readFileSync('/proc/sys/net/core/somaxconn', 'utf8'));

/**
 * LISTEN_BACKLOG (src/config/index.ts, src/server.ts): the kernel queues that many connections
 * before the service accepts them. With Node's default (511), 3 000 phones reconnecting at once
 * overflowed the queue and their kernels retried the dropped attempts seconds later.
 */
describe('the listening socket of the real server process', () => {
  const databaseUrl = process.env.DATABASE_URL as string;
  let server: ServerProcess | undefined;
  afterEach(async () => {
    server?.child.kill('SIGTERM');
    await server?.exited;
    server = undefined;
  });

  it('queues 4 096 connections by default (or the kernel limit, if lower)', async () => {
    server = await spawnServer({ DATABASE_URL: databaseUrl });
    await server.waitForOutput(/listening on/);
    expect(acceptQueueLimit(server.port)).toBe(Math.min(4096, somaxconn));
  }, 60000);

  it('queues LISTEN_BACKLOG connections when it is set', async () => {
    server = await spawnServer({ DATABASE_URL: databaseUrl, LISTEN_BACKLOG: '1000' });
    await server.waitForOutput(/listening on/);
    expect(acceptQueueLimit(server.port)).toBe(Math.min(1000, somaxconn));
  }, 60000);

  it('refuses to start with a backlog that is not a positive whole number', async () => {
    server = await spawnServer({ DATABASE_URL: databaseUrl, LISTEN_BACKLOG: 'lots' });
    const { code } = await server.exited;
    expect(code).toBe(1);
    expect(server.stderr()).toContain('LISTEN_BACKLOG');
  }, 60000);
});

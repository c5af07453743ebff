import { execFileSync } from 'node:child_process';
import { get } from 'node:http';
import { createServer, type Server } from 'node:net';
import { reusePortSupported } from '../../src/lib/listeners';
import { spawnServer, type ServerProcess } from '../helpers/server-process';

/** How many sockets listen on `port` (`ss`: one LISTEN line each). */
function listeningSockets(port: number): number {
  return execFileSync('ss', ['-ltnH', `sport = :${port}`], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .filter(Boolean).length;
}

/** GET `path` on a new connection (no keep-alive agent): the status code. */
function getOnNewConnection(port: number, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    get({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    }).on('error', reject);
  });
}

/**
 * LISTEN_SOCKETS (src/lib/listeners.ts, src/server.ts): the service listens on several sockets
 * of its port (SO_REUSEPORT, Node.js 22.12 or later), because libuv accepts one connection per
 * listening socket per turn of a busy event loop; on an older Node.js, on one.
 */
describe('the listening sockets of the real server process', () => {
  const databaseUrl = process.env.DATABASE_URL as string;
  let server: ServerProcess | undefined;
  let squatter: Server | undefined;
  afterEach(async () => {
    server?.child.kill('SIGTERM');
    await server?.exited;
    server = undefined;
    await new Promise((resolve) => (squatter ? squatter.close(resolve) : resolve(undefined)));
    squatter = undefined;
  });

  it('listens on LISTEN_SOCKETS sockets of its port where Node.js has reusePort, else on one', async () => {
    server = await spawnServer({ DATABASE_URL: databaseUrl, LISTEN_SOCKETS: '4' });
    await server.waitForOutput(/listening on/);
    const expected = reusePortSupported() ? 4 : 1;
    expect(listeningSockets(server.port)).toBe(expected);
    expect(server.output()).toContain(`"listeningSockets":${expected}`);
  }, 60000);

  it('answers fifty new connections at once, whichever socket accepted them', async () => {
    server = await spawnServer({ DATABASE_URL: databaseUrl, LISTEN_SOCKETS: '4' });
    await server.waitForOutput(/listening on/);
    const port = server.port;
    const statuses = await Promise.all(Array.from({ length: 50 }, () => getOnNewConnection(port, '/api/health/live')));
    expect(statuses).toEqual(Array(50).fill(200));
  }, 60000);

  it('refuses to start on a port another process listens on, as with one socket', async () => {
    squatter = createServer();
    await new Promise<void>((resolve) => squatter!.listen({ port: 0, host: '127.0.0.1' }, resolve));
    const port = (squatter.address() as { port: number }).port;
    server = await spawnServer({ DATABASE_URL: databaseUrl, PORT: String(port), HOST: '127.0.0.1' });
    const { code } = await server.exited;
    expect(code).toBe(1);
    expect(server.stderr()).toContain('port already in use');
  }, 60000);

  it('refuses to start with LISTEN_SOCKETS above 64', async () => {
    server = await spawnServer({ DATABASE_URL: databaseUrl, LISTEN_SOCKETS: '65' });
    const { code } = await server.exited;
    expect(code).toBe(1);
    expect(server.stderr()).toContain('LISTEN_SOCKETS');
  }, 60000);
});

describe('reusePortSupported', () => {
  it.each([
    ['20.20.2', false],
    ['22.11.0', false],
    ['22.12.0', true],
    ['23.0.0', false],
    ['23.1.0', true],
    ['24.21.0', true],
  ])('Node.js %s: %s', (version, supported) => {
    expect(reusePortSupported(version)).toBe(supported);
  });
});

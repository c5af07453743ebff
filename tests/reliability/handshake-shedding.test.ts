import path from 'node:path';
import { io as ioClient } from 'socket.io-client';
import { createUser, type TestUser } from '../helpers/factories';
import { spawnServer, until, type ServerProcess } from '../helpers/server-process';

/**
 * A real server process whose event loop is made to lag (held busy 6 s at a time, above the
 * service's 5 s threshold, src/config/index.ts realtime.shedLagMs; tests/fixtures/lag-loop.cjs,
 * switched by SIGUSR2) refuses socket handshakes with the documented connect_error `data.code`
 * SERVICE_UNAVAILABLE before any work, so clients back off (docs/event-day.md "Shedding
 * handshakes"); once the loop catches up, handshakes are accepted again.
 */
type Outcome = { connected: true } | { connected: false; message: string; code: unknown };

/** One handshake without retries; a long connect timeout, since every step waits for the lagging loop. */
function handshake(url: string, token: string): Promise<Outcome> {
  return new Promise((resolve) => {
    const socket = ioClient(url, {
      path: '/socket.io',
      transports: ['websocket'],
      reconnection: false,
      forceNew: true,
      timeout: 60_000,
      auth: { token },
    });
    socket.once('connect', () => {
      socket.close();
      resolve({ connected: true });
    });
    socket.once('connect_error', (err: Error & { data?: { code?: unknown } }) => {
      socket.close();
      resolve({ connected: false, message: err.message, code: err.data?.code });
    });
  });
}

describe('socket handshakes while the event loop lags', () => {
  let server: ServerProcess;
  let member: TestUser;
  let lagging = false;

  // Switching on waits for the end of the first hold (a handshake sent before it could be
  // answered in the 20 ms before the loop is first held, when nothing lags yet).
  const toggleLag = async () => {
    const marks = (pattern: RegExp) => (server.stderr().match(pattern) ?? []).length;
    const before = marks(/lag-loop: (on|off)/g);
    const held = marks(/lag-loop: held/g);
    server.child.kill('SIGUSR2');
    await until(async () => marks(/lag-loop: (on|off)/g) > before);
    lagging = !lagging;
    if (lagging) await until(async () => marks(/lag-loop: held/g) > held);
  };

  beforeAll(async () => {
    member = await createUser();
    server = await spawnServer({
      DATABASE_URL: process.env.DATABASE_URL as string,
      NODE_OPTIONS: `--require ${path.join(__dirname, '..', 'fixtures', 'lag-loop.cjs')}`,
    });
    await server.waitForOutput(/listening on/);
  }, 240_000);
  afterAll(() => {
    if (server.child.exitCode === null) server.child.kill('SIGKILL');
  });

  it('accepts a handshake while the loop keeps up', async () => {
    expect(await handshake(server.url, member.token)).toEqual({ connected: true });
  });

  it('refuses a handshake with SERVICE_UNAVAILABLE while the loop lags, and logs it once', async () => {
    if (!lagging) await toggleLag();
    expect(await handshake(server.url, member.token)).toEqual({
      connected: false,
      message: 'Service temporarily unavailable',
      code: 'SERVICE_UNAVAILABLE',
    });
    // the log line is written when the held loop lets the logger run
    await until(async () => /event loop lagging: socket handshakes refused/.test(server.output()));
    expect(server.output()).toMatch(/event loop lagging: socket handshakes refused/);
  }, 240_000);

  it('refuses before the token check: an invalid token gets SERVICE_UNAVAILABLE too', async () => {
    if (!lagging) await toggleLag();
    expect(await handshake(server.url, 'not-a-token')).toMatchObject({ connected: false, code: 'SERVICE_UNAVAILABLE' });
  }, 240_000);

  it('accepts handshakes again once the loop caught up', async () => {
    if (lagging) await toggleLag();
    let outcome: Outcome = { connected: false, message: '', code: undefined };
    await until(async () => (outcome = await handshake(server.url, member.token)).connected);
    expect(outcome).toEqual({ connected: true });
    expect(server.output()).toMatch(/event loop caught up: socket handshakes accepted again/);
  }, 240_000);
});

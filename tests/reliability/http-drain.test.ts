import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpDrain } from '../../src/lib/lifecycle';
import { until } from '../helpers/server-process';

/**
 * src/lib/lifecycle.ts's HttpDrain on a real HTTP server: it counts the responses in flight
 * (linked through the responses, not kept in a Set), marks those in flight when the drain
 * begins `Connection: close`, and reports when the last one is done. The process-level check is
 * tests/reliability/server-shutdown.test.ts.
 */
async function drainServer() {
  /** the answers of the requests to /hold, each sent when called */
  const held: (() => void)[] = [];
  const server = http.createServer((req, res) => {
    const answer = () => res.end('done');
    if (req.url === '/hold') held.push(answer);
    else answer();
  });
  const drain = new HttpDrain(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 10 });
  const get = (path: string) =>
    new Promise<{ status: number; connection?: string }>((resolve, reject) => {
      const req = http.get({ host: '127.0.0.1', port, path, agent }, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection }));
      });
      req.on('error', reject);
    });
  const close = () => {
    agent.destroy();
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return { drain, held, get, port, close };
}

describe('HttpDrain', () => {
  let s: Awaited<ReturnType<typeof drainServer>>;
  beforeEach(async () => {
    s = await drainServer();
  });
  afterEach(() => s.close());

  it('counts the responses in flight and none once they are answered', async () => {
    const answers = [s.get('/hold'), s.get('/hold'), s.get('/hold')];
    await until(async () => s.held.length === 3, 5);
    expect(s.drain.active).toBe(3);
    s.held[1]();
    await answers[1];
    await until(async () => s.drain.active === 2, 5);
    s.held[0]();
    s.held[2]();
    await Promise.all(answers);
    await until(async () => s.drain.active === 0, 5);
    // quick requests on the same connections enter and leave the count
    await Promise.all(Array.from({ length: 200 }, () => s.get('/quick')));
    await until(async () => s.drain.active === 0, 5);
  });

  it('leaves the count when the client goes away before the answer', async () => {
    const req = http.get({ host: '127.0.0.1', port: s.port, path: '/hold' });
    req.on('error', () => undefined);
    await until(async () => s.held.length === 1, 5);
    expect(s.drain.active).toBe(1);
    req.destroy();
    await until(async () => s.drain.active === 0, 5);
    // the late answer to a closed response changes nothing
    s.held[0]();
    expect(s.drain.active).toBe(0);
  });

  it('marks every response in flight Connection: close when the drain begins, and reports their end', async () => {
    const answers = [s.get('/hold'), s.get('/hold')];
    await until(async () => s.held.length === 2, 5);
    s.drain.begin();
    const finished = s.drain.finished(10_000);
    for (const answer of s.held) answer();
    expect(await Promise.all(answers)).toEqual([
      { status: 200, connection: 'close' },
      { status: 200, connection: 'close' },
    ]);
    await expect(finished).resolves.toBe(true);
    expect(s.drain.active).toBe(0);
  });

  it('reports false when a response in flight outlasts the time given', async () => {
    const answer = s.get('/hold').catch(() => 'closed');
    await until(async () => s.held.length === 1, 5);
    s.drain.begin();
    await expect(s.drain.finished(50)).resolves.toBe(false);
    // finished() closed the connection of the response still in flight
    await expect(answer).resolves.toBe('closed');
  });
});

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { runFixedRate, type RateTarget } from '../../scripts/bench-http/fixed-rate';

/**
 * The open-loop load of the benches (scripts/bench-http/fixed-rate.ts) with undici's client, the
 * one bench:event-day polls with, against a real HTTP server on loopback.
 */
const BIG = Buffer.alloc(300 * 1024, 'x');
const targets: RateTarget[] = [
  { name: 'small', path: '/small', weight: 2, auth: true },
  { name: 'big', path: '/big', weight: 1, auth: true },
  { name: 'down', path: '/down', weight: 1, auth: false },
];

let server: http.Server;
let baseUrl: string;
const seen: { path: string; rawHeaders: string[] }[] = [];
let resetNext = false;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    seen.push({ path: req.url ?? '', rawHeaders: req.rawHeaders });
    if (resetNext && req.url === '/small') {
      resetNext = false;
      req.socket.destroy();
      return;
    }
    if (req.url === '/down') res.writeHead(503).end();
    else if (req.url === '/big') res.writeHead(200, { 'content-type': 'text/plain' }).end(BIG);
    else res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  seen.length = 0;
  resetNext = false;
});

describe('bench fixed-rate load with the undici client', () => {
  it('sends every request with undici, measures each answer to the end of its body, counts other statuses as errors', async () => {
    const report = await runFixedRate(baseUrl, targets, ['t1', 't2'], 100, 0.4, { client: 'undici' });
    expect(report.sent).toBe(40);
    const by = Object.fromEntries(report.results.map((r) => [r.name, r]));
    expect(by.small.latencies).toHaveLength(20);
    expect(by.big.latencies).toHaveLength(10);
    expect(by.down).toMatchObject({ latencies: [], errors: 10, errorKinds: { '503': 10 } });
    expect(report.samples).toHaveLength(30);
    expect(report.samples.every((s) => s.latency > 0 && s.sentAt >= 0)).toBe(true);
    // undici writes the host header in lower case (Node's http.request: "Host"), and the token as asked
    expect(seen).toHaveLength(40);
    expect(seen.every((r) => r.rawHeaders.includes('host') && !r.rawHeaders.includes('Host'))).toBe(true);
    const auth = seen.find((r) => r.path === '/small')!.rawHeaders;
    expect(auth[auth.findIndex((h) => h.toLowerCase() === 'authorization') + 1]).toMatch(/^Bearer t[12]$/);
  });

  it('sends a request once more when its connection is closed before the answer, and counts it', async () => {
    resetNext = true;
    const report = await runFixedRate(baseUrl, [targets[0]], ['t1'], 50, 0.2, { client: 'undici' });
    expect(report.sent).toBe(10);
    expect(report.retriedResets).toBe(1);
    expect(report.results[0]).toMatchObject({ errors: 0 });
    expect(report.results[0].latencies).toHaveLength(10);
    expect(seen.filter((r) => r.path === '/small')).toHaveLength(11);
  });
});

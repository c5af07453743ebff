/**
 * `npm run bench:accept`: how long new connections wait to be accepted by a busy Node.js
 * process, with one listening socket and with several (SO_REUSEPORT, as LISTEN_SOCKETS does in
 * src/lib/listeners.ts). A child process runs an HTTP server; 200 keep-alive connections keep
 * it at full load (BENCH_ACCEPT_RATE requests a second, each BENCH_ACCEPT_BUSY_MS of CPU after
 * a 5 ms wait, like a read with a query); then BENCH_ACCEPT_BURST new connections arrive at
 * once, each asking for a path answered without work. Their latency is the wait to be accepted
 * and read. libuv accepts one connection per listening socket per turn of the event loop, and
 * at full load a turn lasts long (docs/event-day.md "Several listening sockets").
 *
 * Knobs: BENCH_ACCEPT_SOCKETS (1,16: the counts compared), BENCH_ACCEPT_RATE (500),
 * BENCH_ACCEPT_BUSY_MS (2), BENCH_ACCEPT_BURST (300). Needs Node.js 22.12 or later for more
 * than one socket.
 */
import { fork } from 'node:child_process';
import http from 'node:http';
import { reusePortSupported } from '../src/lib/listeners.js';

const SOCKETS = (process.env.BENCH_ACCEPT_SOCKETS ?? '1,16').split(',').map(Number);
const RATE = Number(process.env.BENCH_ACCEPT_RATE ?? 500);
const BUSY_MS = Number(process.env.BENCH_ACCEPT_BUSY_MS ?? 2);
const BURST = Number(process.env.BENCH_ACCEPT_BURST ?? 300);

/** The child: an HTTP server on `sockets` listening sockets of one port. */
function serve(sockets: number): void {
  const busy = (ms: number) => {
    const t = performance.now();
    while (performance.now() - t < ms);
  };
  const server = http.createServer((req, res) => {
    if (req.url === '/cheap') return void res.end('ok');
    setTimeout(() => {
      busy(BUSY_MS);
      res.end('ok');
    }, 5);
  });
  void import('../src/lib/listeners.js').then(async ({ listenOn }) => {
    const { port } = await listenOn(server, { port: 0, host: '127.0.0.1', backlog: 4096, sockets }, () => undefined);
    process.send!(port);
  });
}

async function measure(sockets: number): Promise<{ p50: number; p99: number; max: number }> {
  const child = fork(process.argv[1], ['--serve', String(sockets)], { execArgv: process.execArgv });
  const port = await new Promise<number>((resolve) => child.once('message', (m) => resolve(Number(m))));
  const agent = new http.Agent({ keepAlive: true, maxSockets: 200 });
  const steady = setInterval(() => {
    for (let i = 0; i < RATE / 100; i++)
      http.get({ port, host: '127.0.0.1', agent }, (r) => r.resume()).on('error', () => undefined);
  }, 10);
  await new Promise((r) => setTimeout(r, 2000));
  const latencies = await Promise.all(
    Array.from(
      { length: BURST },
      () =>
        new Promise<number>((resolve, reject) => {
          const start = performance.now();
          http
            .get({ port, host: '127.0.0.1', agent: false, path: '/cheap' }, (r) => {
              r.resume();
              r.on('end', () => resolve(performance.now() - start));
            })
            .on('error', reject);
        }),
    ),
  );
  clearInterval(steady);
  agent.destroy();
  child.kill();
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
  return { p50: at(0.5), p99: at(0.99), max: latencies[latencies.length - 1] };
}

async function main(): Promise<void> {
  console.log(
    `bench:accept ${new Date().toISOString()}: Node ${process.version}; full load ${RATE} req/s × ${BUSY_MS} ms of CPU on 200 keep-alive connections, then ${BURST} new connections at once`,
  );
  for (const sockets of SOCKETS) {
    if (sockets > 1 && !reusePortSupported()) {
      console.log(`  ${sockets} listening sockets: needs Node.js 22.12 or later (reusePort), skipped`);
      continue;
    }
    const r = await measure(sockets);
    console.log(
      `  ${String(sockets).padStart(2)} listening socket(s): new connections answered after p50 ${r.p50.toFixed(0)} ms, p99 ${r.p99.toFixed(0)} ms, max ${r.max.toFixed(0)} ms`,
    );
  }
}

if (process.argv[2] === '--serve') serve(Number(process.argv[3]));
else void main();

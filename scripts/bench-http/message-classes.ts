/**
 * `npm run bench:http:classes [node binary]`: what making the HTTP server's requests and
 * responses costs per answer (src/lib/app-messages.ts): bare Express 5 + helmet() answering a
 * small JSON document (scripts/bench-http/message-classes-server.ts), its objects made by Node's
 * classes (Express changes their prototype), by the service's classes, or by the constructors the
 * service used until 2026-12-07. Each server runs in its own process on the given Node binary
 * (default: this one), 100 000 answers after a 2 s warm-up, 50 connections through autocannon;
 * prints req/s and the server's CPU time per answer (steadier than req/s on a shared machine),
 * in alternating rounds (BENCH_ROUNDS, 2; BENCH_SCHEMES, e.g. `service,constructors`, keeps some).
 */
import { execFileSync, fork } from 'node:child_process';
import path from 'node:path';
import autocannon from 'autocannon';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const ANSWERS = 100_000;
const nodeBinary = process.argv[2] ?? process.execPath;
const SCHEMES = ['express', 'service', 'constructors'] as const;
type Scheme = (typeof SCHEMES)[number];
const schemes = (process.env.BENCH_SCHEMES?.split(',') ?? SCHEMES).filter((s): s is Scheme =>
  (SCHEMES as readonly string[]).includes(s),
);

async function measure(scheme: Scheme): Promise<string> {
  const child = fork(path.join(__dirname, 'message-classes-server.ts'), [scheme], {
    execPath: nodeBinary,
    execArgv: ['--import', 'tsx'],
  });
  try {
    const port = await new Promise<number>((resolve) => child.once('message', (m) => resolve(Number(m))));
    const base = `http://127.0.0.1:${port}`;
    await autocannon({ url: `${base}/hello`, connections: 50, duration: 2 });
    await fetch(`${base}/reset`);
    const run = await autocannon({ url: `${base}/hello`, connections: 50, amount: ANSWERS });
    const report = (await (await fetch(`${base}/report`)).json()) as { cpuMicrosPerAnswer: number };
    return `${scheme.padEnd(14)} ${run.requests.average.toFixed(0).padStart(7)} req/s ${report.cpuMicrosPerAnswer.toFixed(1).padStart(7)} µs of server CPU per answer`;
  } finally {
    child.kill();
  }
}

async function main(): Promise<void> {
  const version = execFileSync(nodeBinary, ['-p', 'process.version'], { encoding: 'utf8' }).trim();
  console.log(`bench:http:classes ${new Date().toISOString()}, server on Node ${version}, ${ANSWERS} answers per run`);
  for (let round = 1; round <= ROUNDS; round++) for (const scheme of schemes) console.log(await measure(scheme));
}

void main();

/**
 * Shutdown under keep-alive load (issue 16): starts the server on a fresh database, keeps
 * CONNECTIONS keep-alive connections busy with GET /api/health (and GET /api/events, which reads
 * the database), sends SIGTERM, and prints the time to exit, the exit code, the answers sent after
 * the SIGTERM and any 5xx.
 *   npm run bench:shutdown        (CONNECTIONS=50 LOAD_MS=2000 by default; TEST_DATABASE_ADMIN_URL as the tests)
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { benchDatabase } from './lib/bench-database.js';

const CONNECTIONS = Number(process.env.CONNECTIONS ?? 50);
const LOAD_MS = Number(process.env.LOAD_MS ?? 2000);
const root = path.join(__dirname, '..');
const port = 40000 + Math.floor(Math.random() * 10000);
const database = benchDatabase('wcs_bench_shutdown');
const databaseUrl = database.url;

/** Like `npm start`: one node process with tsx's loader. */
function startServer() {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd: root,
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      LOG_LEVEL: 'info',
      RATE_LIMIT_ENABLED: 'false',
      MATCHING_SCHEDULER_ENABLED: 'false',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  return { child, exited, output: () => output };
}

function get(agent: http.Agent, urlPath: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: urlPath, agent }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      })
      .on('error', reject);
  });
}

async function main() {
  await database.create();
  const { child, exited, output } = startServer();
  while (!output().includes('listening on')) await new Promise((r) => setTimeout(r, 100));
  let sigtermAt = 0;
  const statuses = new Map<number, number>();
  let afterSigterm = 0;
  const loops = Array.from({ length: CONNECTIONS }, async (_, i) => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    for (;;) {
      try {
        const status = await get(agent, i % 2 ? '/api/health' : '/api/events');
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        if (sigtermAt) afterSigterm++;
      } catch {
        if (sigtermAt) break;
      }
    }
  });
  await new Promise((r) => setTimeout(r, LOAD_MS));
  sigtermAt = performance.now();
  child.kill('SIGTERM');
  const code = await exited;
  const exitMs = performance.now() - sigtermAt;
  await Promise.all(loops);
  const fiveHundreds = [...statuses].filter(([s]) => s >= 500).reduce((n, [, c]) => n + c, 0);
  await database.drop();
  if (process.env.SHOW_LOG) console.log(output());
  console.log(
    JSON.stringify({
      connections: CONNECTIONS,
      exitCode: code,
      sigtermToExitMs: Math.round(exitMs),
      answersAfterSigterm: afterSigterm,
      statuses: Object.fromEntries(statuses),
      fiveHundreds,
    }),
  );
}

void main();

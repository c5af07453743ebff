/**
 * Mail-sending requests (issue 16, item 4): starts the server on a fresh database with an SMTP
 * server in this process that either accepts every mail or hangs (accepts the connection, never
 * answers the message), then sends REQUESTS registrations and as many password-reset requests,
 * CONCURRENCY at a time, and prints their latencies. With the hanging SMTP server it then sends
 * SIGTERM and prints how many verification/reset mails are still queued in PostgreSQL (kept for
 * the next start) and how long the shutdown took.
 *   npm run bench:mail     (REQUESTS=200 CONCURRENCY=10 BCRYPT_ROUNDS=10; TEST_DATABASE_ADMIN_URL as the tests)
 * SERVICE_DIR measures another checkout of the service (e.g. an older commit) with the same load.
 */
import { spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Client } from 'pg';
import { SMTPServer } from 'smtp-server';
import { benchDatabase } from './lib/bench-database.js';

const REQUESTS = Number(process.env.REQUESTS ?? 200);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 10);
const BCRYPT_ROUNDS = process.env.BCRYPT_ROUNDS ?? '10';
const serviceDir = process.env.SERVICE_DIR ? path.resolve(process.env.SERVICE_DIR) : path.join(__dirname, '..');

type SmtpMode = 'accepting' | 'hanging';

async function startSmtp(mode: SmtpMode) {
  let accepted = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    closeTimeout: 100,
    onData(stream, _session, callback) {
      stream.resume();
      if (mode === 'hanging') return; // never answers: the client waits for its socket timeout
      stream.on('end', () => {
        accepted++;
        callback();
      });
    },
  });
  server.on('error', () => undefined); // connections reset by the service's exit are expected
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.server.address() as AddressInfo).port,
    accepted: () => accepted,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function startServer(databaseUrl: string, smtpPort: number) {
  const port = 40000 + Math.floor(Math.random() * 10000);
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd: serviceDir,
    env: {
      ...process.env,
      NODE_ENV: 'production',
      JWT_SECRET: 'bench-secret-that-is-at-least-32-characters-long',
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      SMTP_HOST: '127.0.0.1',
      SMTP_PORT: String(smtpPort),
      BCRYPT_ROUNDS,
      LOG_LEVEL: 'warn',
      RATE_LIMIT_ENABLED: 'false',
      MATCHING_SCHEDULER_ENABLED: 'false',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const ready = async () => {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`server exited:\n${output}`);
      try {
        if ((await fetch(`http://127.0.0.1:${port}/api/health`)).ok) return;
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  return { child, exited, ready, url: `http://127.0.0.1:${port}` };
}

async function post(url: string, body: unknown): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  await res.arrayBuffer();
  return { status: res.status, ms: performance.now() - started };
}

/** Runs `count` requests, `CONCURRENCY` at a time; answers their latencies and statuses. */
async function load(count: number, request: (i: number) => Promise<{ status: number; ms: number }>) {
  const latencies: number[] = [];
  const statuses: Record<number, number> = {};
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) {
        const { status, ms } = await request(next++);
        latencies.push(ms);
        statuses[status] = (statuses[status] ?? 0) + 1;
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  const at = (q: number) =>
    Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] * 10) / 10;
  return { p50: at(0.5), p95: at(0.95), p99: at(0.99), statuses };
}

/** Mail jobs not yet sent (created, retry or active); null when the checkout has no durable queue. */
async function queuedMails(databaseUrl: string): Promise<number | null> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query(
      `SELECT count(*)::int AS n FROM pgboss.job WHERE state IN ('created', 'retry', 'active')`,
    );
    return rows[0].n as number;
  } catch {
    return null;
  } finally {
    await client.end();
  }
}

async function run(mode: SmtpMode) {
  const database = benchDatabase(`wcs_bench_mail_${mode}`);
  await database.create();
  const smtp = await startSmtp(mode);
  const server = startServer(database.url, smtp.port);
  try {
    await server.ready();
    const emails = Array.from({ length: REQUESTS }, (_, i) => `bench_${mode}_${i}@example.test`);
    const register = await load(REQUESTS, (i) =>
      post(`${server.url}/api/auth/register`, {
        username: `bench_${mode}_${i}`,
        email: emails[i],
        password: 'secret123',
      }),
    );
    const reset = await load(REQUESTS, (i) =>
      post(`${server.url}/api/auth/request-password-reset`, { email: emails[i] }),
    );
    const result: Record<string, unknown> = {
      smtp: mode,
      requests: REQUESTS,
      concurrency: CONCURRENCY,
      register,
      reset,
    };
    if (mode === 'accepting') {
      const deadline = Date.now() + 60_000;
      while (smtp.accepted() < 2 * REQUESTS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      result.mailsAccepted = smtp.accepted();
    } else {
      const sigterm = performance.now();
      server.child.kill('SIGTERM');
      result.exitCode = await server.exited;
      result.sigtermToExitMs = Math.round(performance.now() - sigterm);
      result.mailsStillQueuedAfterExit = await queuedMails(database.url);
    }
    console.log(JSON.stringify(result));
  } finally {
    if (server.child.exitCode === null) server.child.kill('SIGKILL');
    await server.exited;
    await smtp.close();
    await database.drop();
  }
}

async function main() {
  console.log(`service: ${path.relative(process.cwd(), serviceDir) || '.'}; BCRYPT_ROUNDS=${BCRYPT_ROUNDS}`);
  await run('accepting');
  await run('hanging');
  process.exit(0);
}

void main();

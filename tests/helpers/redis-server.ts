import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createClient } from 'redis';
import { freePort } from './process';

/**
 * A private `redis-server` (Debian's package) for the tests that need Redis: started on a free
 * port, without persistence, killed after the file. Tests never rely on a system instance on
 * 6379 (a fresh CI machine has none; .ci/run installs the package).
 *
 * `redisServerOrSkip()` answers undefined when the binary is missing, so a developer without
 * Redis sees the tests skipped with a warning; with CI=true a missing binary FAILS instead
 * (issue 23, item 6: a test that cannot run must not pass silently).
 */
export interface PrivateRedis {
  port: number;
  /** redis://127.0.0.1:<port>/0 */
  url: string;
  /** SIGKILL: Redis crashes (connections reset, data gone) */
  kill(): Promise<void>;
  /** SIGSTOP / SIGCONT: Redis freezes (connections stay open, nothing answers) and thaws */
  pause(): void;
  resume(): void;
  /** starts a new redis-server on the same port (after kill) and waits until it answers */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

const BINARY = process.env.REDIS_SERVER_PATH ?? 'redis-server';

function binaryAvailable(): boolean {
  return spawnSync(BINARY, ['--version'], { stdio: 'ignore' }).status === 0;
}

async function answers(url: string): Promise<boolean> {
  const client = createClient({ url, socket: { connectTimeout: 500, reconnectStrategy: false } });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.ping();
    await client.quit();
    return true;
  } catch {
    client.destroy();
    return false;
  }
}

function spawnRedis(port: number): ChildProcess {
  const child = spawn(
    BINARY,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no'],
    {
      stdio: 'ignore',
    },
  );
  child.on('error', () => undefined);
  return child;
}

async function waitUntilAnswering(url: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await answers(url))) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`redis-server on ${url} did not start`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const exited = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise<void>((resolve) => child.once('exit', () => resolve()));

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}/0`;
  let child = spawnRedis(port);
  await waitUntilAnswering(url, child);
  const killNow = async () => {
    if (child.signalCode === 'SIGSTOP' || child.exitCode === null) child.kill('SIGCONT');
    child.kill('SIGKILL');
    await exited(child);
  };
  return {
    port,
    url,
    kill: killNow,
    pause: () => void child.kill('SIGSTOP'),
    resume: () => void child.kill('SIGCONT'),
    async restart() {
      await killNow();
      child = spawnRedis(port);
      await waitUntilAnswering(url, child);
    },
    stop: killNow,
  };
}

/**
 * `describe` for tests that need redis-server: skipped (reported as skipped, never as passed)
 * when the binary is missing outside CI; with CI=true they run, and `usePrivateRedis().get()`
 * fails them.
 */
export const describeWithRedis: jest.Describe =
  binaryAvailable() || process.env.CI === 'true' ? describe : describe.skip;

/**
 * For a describe block: a private Redis before its tests, stopped after them. `get()` answers
 * it, or undefined when redis-server is not installed (with a warning). The tests that need it
 * are in describeWithRedis blocks, so they reach `get()` without redis-server only under
 * CI=true, where it throws and fails them.
 */
export function usePrivateRedis(): { get(): PrivateRedis | undefined } {
  let redis: PrivateRedis | undefined;
  let missing = false;
  beforeAll(async () => {
    if (!binaryAvailable()) {
      missing = true;
      return;
    }
    redis = await startPrivateRedis();
  }, 30_000);
  afterAll(async () => {
    await redis?.stop();
  });
  return {
    get() {
      if (missing && process.env.CI === 'true')
        throw new Error(
          `CI=true and ${BINARY} is not installed: the Redis tests cannot run (apt-get install redis-server)`,
        );
      if (missing) console.warn(`${BINARY} not installed: Redis test skipped`);
      return redis;
    },
  };
}

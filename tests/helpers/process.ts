import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

export { freePort } from '../../src/lib/embedded-postgres';

export const ROOT = path.join(__dirname, '..', '..');

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a TypeScript entry point (src/server.ts, src/cli.ts) as a real process, as `npm start`
 * does: one Node process with tsx's loader, so a signal sent to it reaches the service itself
 * (the tsx command would relay it, and SIGKILL the child when it answers slowly).
 */
export function spawnTs(entry: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', entry, ...args], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

export function runTs(entry: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs = 60000): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawnTs(entry, args, env);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${entry} ${args.join(' ')} timed out\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Environment for a child process: the test settings without Jest's own variables. */
export function childEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_OPTIONS: '', ...extra };
  delete env.JEST_WORKER_ID;
  return env;
}

export interface Health {
  status: number;
  body: { data: { status: string; databaseKind: string } };
}

export interface ServerProcess {
  child: ChildProcess;
  /** the port the service reported listening on (0 until then) */
  readonly port: number;
  /** stdout and stderr so far */
  output(): string;
  /** exit code (null after a signal) */
  exited: Promise<number | null>;
}

/**
 * Starts the service (`src/server.ts`) on a port the system picks (PORT=0) and reads the port
 * from its "listening on" line: a port picked here and freed again could be taken meanwhile,
 * e.g. by the embedded PostgreSQL server the service starts first.
 */
export async function startServer(env: NodeJS.ProcessEnv): Promise<ServerProcess> {
  const child = spawnTs('src/server.ts', [], { ...env, PORT: '0', LOG_LEVEL: 'info' });
  let output = '';
  let port = 0;
  const collect = (d: Buffer) => {
    output += d;
    port ||= Number(/listening on http:\/\/localhost:(\d+)/.exec(output)?.[1] ?? 0);
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    get port() {
      return port;
    },
    output: () => output,
    exited,
  };
}

/** Polls /api/health until it answers 200; fails when the process exits or after `waitMs`. */
export async function waitForHealth(server: ServerProcess, waitMs = 60000): Promise<Health> {
  let exited = false;
  void server.exited.then(() => (exited = true));
  const deadline = Date.now() + waitMs;
  while (!exited && Date.now() < deadline) {
    try {
      if (!server.port) throw new Error('not listening yet');
      const res = await fetch(`http://127.0.0.1:${server.port}/api/health`);
      if (res.ok) return { status: res.status, body: (await res.json()) as Health['body'] };
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`server did not become healthy:\n${server.output()}`);
}

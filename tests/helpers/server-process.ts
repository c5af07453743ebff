import type { ChildProcess } from 'node:child_process';
import { childEnv, freePort, spawnTs } from './process';

/** `tsx src/server.ts` as a real process, with its output collected and its exit awaited. */
export interface ServerProcess {
  child: ChildProcess;
  port: number;
  url: string;
  /** stdout and stderr so far */
  output(): string;
  stderr(): string;
  /** resolves when a line matching `pattern` has been written (or rejects when the process exits first) */
  waitForOutput(pattern: RegExp): Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export async function spawnServer(env: NodeJS.ProcessEnv): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawnTs('src/server.ts', [], childEnv({ LOG_LEVEL: 'info', PORT: String(port), ...env }));
  let out = '';
  let err = '';
  const listeners = new Set<() => void>();
  const notify = () => listeners.forEach((l) => l());
  child.stdout!.on('data', (d) => ((out += d), notify()));
  child.stderr!.on('data', (d) => ((err += d), notify()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => {
      resolve({ code, signal });
      notify();
    }),
  );
  let hasExited = false;
  void exited.then(() => (hasExited = true));
  return {
    child,
    port,
    url: `http://127.0.0.1:${port}`,
    output: () => out + err,
    stderr: () => err,
    exited,
    waitForOutput(pattern) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (pattern.test(out + err)) {
            listeners.delete(check);
            resolve();
          } else if (hasExited || child.exitCode !== null || child.signalCode !== null) {
            listeners.delete(check);
            reject(new Error(`server exited before writing ${pattern}:\n${out}${err}`));
          }
        };
        listeners.add(check);
        check();
      });
    },
  };
}

/** Polls `probe` until it returns true (the caller's test timeout bounds the wait). */
export async function until(probe: () => Promise<boolean>, everyMs = 100): Promise<void> {
  while (!(await probe())) await new Promise((r) => setTimeout(r, everyMs));
}

import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

export const ROOT = path.join(__dirname, '..', '..');


export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a TypeScript entry point (src/server.ts, src/cli.ts) as a real process, like `npm start`:
 * one node process with tsx's loader. (The `tsx` CLI runs the code in a second process and, when
 * that one does not confirm a signal within 30 ms, as under load, SIGKILLs it and exits 143.)
 */
export function spawnTs(entry: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', entry, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
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

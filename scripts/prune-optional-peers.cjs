#!/usr/bin/env node
// Runtime image only (Dockerfile, stage runtime-deps), after `npm ci --omit=dev`: removes the
// packages the lockfile marks `devOptional`. npm keeps those with --omit=dev because they are
// also *optional peers* of runtime packages: @prisma/client names the prisma CLI (and through it
// Prisma Studio, ~130 packages) and typescript as optional peers. The service needs neither at
// run time (the generated client is compiled into dist/). Packages a runtime package requires
// are never marked devOptional, so nothing the service loads goes. Safe to run twice.
const { existsSync, readFileSync, rmSync } = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const lock = JSON.parse(readFileSync(path.join(root, 'package-lock.json'), 'utf8'));
let removed = 0;
for (const [location, entry] of Object.entries(lock.packages ?? {})) {
  if (!location || !entry.devOptional) continue;
  const dir = path.join(root, location);
  if (!existsSync(dir)) continue;
  rmSync(dir, { recursive: true, force: true });
  removed++;
}
console.error(`removed ${removed} optional peer packages the service does not load (the prisma CLI, typescript)`);

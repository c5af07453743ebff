#!/usr/bin/env node
// Runs `prisma generate` so that it also works offline.
// Every Prisma CLI command first tries to download the native schema engine, which
// `generate` does not need. Pointing PRISMA_SCHEMA_ENGINE_BINARY at an existing file skips
// that download for this one command only; `prisma migrate dev` on a laptop with network
// access is unaffected because the variable is set only here.
const { spawnSync } = require('node:child_process');
const path = require('node:path');

const env = { ...process.env };
if (!env.PRISMA_SCHEMA_ENGINE_BINARY) env.PRISMA_SCHEMA_ENGINE_BINARY = process.execPath;
env.PRISMA_HIDE_UPDATE_MESSAGE = '1';

const cli = path.join(__dirname, '..', 'node_modules', 'prisma', 'build', 'index.js');
const result = spawnSync(process.execPath, [cli, 'generate', ...process.argv.slice(2)], {
  stdio: 'inherit',
  env,
  cwd: path.join(__dirname, '..'),
});
process.exit(result.status ?? 1);

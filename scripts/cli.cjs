#!/usr/bin/env node
// `npm run cli -- <command>`: the operator commands of src/cli.ts. In a checkout it runs the
// TypeScript source through tsx (as `npm start` does); in the image, where only the build is
// shipped, it runs dist/cli.js. Exit code and signals pass through.
const { spawn } = require('node:child_process');
const { existsSync } = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const source = path.join(root, 'src', 'cli.ts');
const args = existsSync(source) ? ['--import', 'tsx', source] : [path.join(root, 'dist', 'cli.js')];
const child = spawn(process.execPath, [...args, ...process.argv.slice(2)], { stdio: 'inherit', cwd: root });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));

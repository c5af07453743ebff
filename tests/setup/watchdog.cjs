'use strict';
// Started detached by tests/setup/global-setup.ts: node watchdog.cjs <jest pid> <cluster dir> <state file>.
// When the jest process is gone without its global teardown (Ctrl-C, crash), stops the run's
// embedded PostgreSQL server and removes its directory and the state file. Exits as soon as the
// directory is gone (teardown ran) or when teardown sends SIGTERM.
const { existsSync, readFileSync, rmSync } = require('node:fs');
const path = require('node:path');

const [jestPid, dir, stateFile] = process.argv.slice(2).map((v, i) => (i === 0 ? Number(v) : v));

function alive(pid) {
  try {
    process.kill(pid, 0);
  } catch (err) {
    return err.code === 'EPERM';
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}

function postmasterPid() {
  try {
    return Number(readFileSync(path.join(dir, 'pgdata', 'postmaster.pid'), 'utf8').split('\n')[0]) || undefined;
  } catch {
    return undefined;
  }
}

async function cleanUp() {
  const pid = postmasterPid();
  if (pid && alive(pid)) {
    // SIGQUIT: immediate shutdown; the cluster is thrown away anyway.
    process.kill(pid, 'SIGQUIT');
    for (let i = 0; i < 100 && alive(pid); i++) await new Promise((r) => setTimeout(r, 100));
    if (alive(pid)) process.kill(pid, 'SIGKILL');
  }
  rmSync(dir, { recursive: true, force: true });
  rmSync(stateFile, { force: true });
}

const timer = setInterval(() => {
  if (!existsSync(dir)) process.exit(0);
  if (alive(jestPid)) return;
  clearInterval(timer);
  cleanUp().finally(() => process.exit(0));
}, 500);

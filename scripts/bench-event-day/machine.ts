/**
 * What the machine itself did during a phase of bench:event-day, so that a table taken on a busy
 * host is told apart from one taken on a quiet machine (docs/event-day.md, "Is the machine
 * quiet?"): the share of the CPU time the hypervisor gave to other guests (steal, in /proc/stat),
 * the idle share, the CPU seconds of PostgreSQL's processes, and a loopback round trip between two
 * processes (the latency every poll and every query pays several times on a VM that is slow to
 * wake a vCPU). Linux only; elsewhere the readings are undefined and the bench prints none.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import net from 'node:net';

/** Clock ticks (USER_HZ) of all CPUs since boot, from the `cpu` line of /proc/stat. */
export interface CpuTimes {
  total: number;
  idle: number;
  steal: number;
}

/**
 * The `cpu` line's fields: user nice system idle iowait irq softirq steal guest guest_nice. The
 * guest times are already counted in user and nice, so the total is the first eight.
 */
export function parseCpuTimes(procStat: string): CpuTimes {
  const line = procStat.split('\n').find((l) => l.startsWith('cpu '));
  if (!line) throw new Error('no cpu line in /proc/stat');
  const f = line.trim().split(/\s+/).slice(1, 9).map(Number);
  if (f.length < 8 || f.some((n) => !Number.isFinite(n))) throw new Error(`unreadable cpu line: ${line}`);
  return { total: f.reduce((a, b) => a + b, 0), idle: f[3] + f[4], steal: f[7] };
}

export function readCpuTimes(): CpuTimes | undefined {
  try {
    return parseCpuTimes(readFileSync('/proc/stat', 'utf8'));
  } catch {
    return undefined;
  }
}

/**
 * A process's name and user + system CPU seconds from its /proc/<pid>/stat (clock ticks of 1/100 s).
 * The name is in parentheses and may itself hold spaces or parentheses, so the fields are counted
 * from the last `)`.
 */
export function parseProcessStat(stat: string): { comm: string; cpuSeconds: number } {
  const close = stat.lastIndexOf(')');
  const fields = stat.slice(close + 2).split(' ');
  return {
    comm: stat.slice(stat.indexOf('(') + 1, close),
    cpuSeconds: (Number(fields[11]) + Number(fields[12])) / 100,
  };
}

/** CPU seconds (user + system) a process used so far. */
export function cpuSecondsOfPid(pid: number): number {
  return parseProcessStat(readFileSync(`/proc/${pid}/stat`, 'utf8')).cpuSeconds;
}

/**
 * User + system CPU seconds of every process named `comm` now running (PostgreSQL's are all
 * `postgres`). The difference of two such sums goes down when a process ends in between (its
 * seconds leave with it): for the CPU of a phase, use cpuSecondsSince.
 */
export function cpuSecondsOf(comm: string): number {
  return cpuSecondsBetween(new Map(), cpuSecondsByPid(comm));
}

/** CPU seconds of each process named `comm` now running, by pid; undefined without /proc (not Linux). */
export function cpuSecondsByPid(comm: string): Map<number, number> | undefined {
  const found = new Map<number, number>();
  let pids: string[];
  try {
    pids = readdirSync('/proc');
  } catch {
    return undefined;
  }
  for (const pid of pids) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = parseProcessStat(readFileSync(`/proc/${pid}/stat`, 'utf8'));
      if (stat.comm === comm) found.set(Number(pid), stat.cpuSeconds);
    } catch {
      // the process ended between the listing and the read
    }
  }
  return found;
}

/**
 * CPU seconds the processes named `comm` used since `before` (cpuSecondsByPid): the processes
 * still running count from their reading then, new ones from their start; one that ended in
 * between is left out (its last seconds are lost, rather than its whole life counted negative).
 */
export function cpuSecondsSince(comm: string, before: Map<number, number> | undefined): number {
  return cpuSecondsBetween(before, cpuSecondsByPid(comm));
}

/** As cpuSecondsSince, between two readings of cpuSecondsByPid (NaN when either could not be read). */
export function cpuSecondsBetween(
  before: Map<number, number> | undefined,
  after: Map<number, number> | undefined,
): number {
  if (!before || !after) return NaN;
  let seconds = 0;
  for (const [pid, now] of after) seconds += now - (before.get(pid) ?? 0);
  return seconds;
}

/** A phase's share of the machine's CPU time (all cores) that was stolen or idle, in %. */
export interface MachineShare {
  stolenPct: number;
  idlePct: number;
  postgresCpuSeconds: number;
}

export interface MachineMark {
  times: CpuTimes | undefined;
  /** PostgreSQL's processes' CPU seconds by pid (cpuSecondsByPid; undefined without /proc) */
  postgres: Map<number, number> | undefined;
}

export function machineMark(): MachineMark {
  return { times: readCpuTimes(), postgres: cpuSecondsByPid('postgres') };
}

export function machineSince(mark: MachineMark, now: MachineMark = machineMark()): MachineShare | undefined {
  if (!mark.times || !now.times) return undefined;
  const total = now.times.total - mark.times.total;
  if (total <= 0) return undefined;
  return {
    stolenPct: (100 * (now.times.steal - mark.times.steal)) / total,
    idlePct: (100 * (now.times.idle - mark.times.idle)) / total,
    postgresCpuSeconds: cpuSecondsBetween(mark.postgres, now.postgres),
  };
}

/** The round trip of one byte between this process and a child echoing it, p50 / p99 in µs. */
export async function loopbackRoundTrip(samples = 1000, gapMs = 2): Promise<{ p50: number; p99: number }> {
  const child = spawn(
    process.execPath,
    [
      '-e',
      `const s = require('net').createServer((c) => { c.setNoDelay(true); c.on('data', (d) => c.write(d)); });
       s.listen(0, '127.0.0.1', () => process.stdout.write(s.address().port + '\\n'));`,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  try {
    const port = await new Promise<number>((resolve, reject) => {
      child.stdout.once('data', (d: Buffer) => resolve(Number(String(d).trim())));
      child.once('exit', (code) => reject(new Error(`the echo process ended (${code})`)));
    });
    const socket = net.connect(port, '127.0.0.1');
    socket.setNoDelay(true);
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    const rtts: number[] = [];
    // one byte in flight at a time, after a pause: as a poll finds the machine between requests
    for (let i = 0; i < samples; i++) {
      await new Promise((r) => setTimeout(r, gapMs));
      const t0 = process.hrtime.bigint();
      await new Promise<void>((resolve) => {
        socket.once('data', () => resolve());
        socket.write('x');
      });
      rtts.push(Number(process.hrtime.bigint() - t0) / 1000);
    }
    socket.destroy();
    rtts.sort((a, b) => a - b);
    return { p50: rtts[Math.floor(samples / 2)], p99: rtts[Math.floor(samples * 0.99)] };
  } finally {
    child.kill();
  }
}

/**
 * A fixed piece of JavaScript on one core (the JSON of a 1 500-participant list written and read
 * 40 times, about what 40 answers of the event's details cost), in ms, the fastest of three tries
 * (a try the machine interrupted says less of its speed): the same figure on the same Node means
 * the same CPU speed, so tables of different days can be compared.
 */
export function jsonProbeMs(rounds = 40, tries = 3): number {
  const list = Array.from({ length: 1500 }, (_, i) => ({
    id: 100_001 + i,
    username: `dancer${i}`,
    displayName: `Dancer Number ${i}`,
    city: ['Paris', 'Berlin', 'Lyon', 'Prague'][i % 4],
    heats: [{ division: 'INT', role: i % 2 ? 'LEADER' : 'FOLLOWER', number: i % 300 }],
    checkedIn: i % 3 !== 0,
  }));
  let fastest = Infinity;
  for (let t = 0; t < tries; t++) {
    let rows = 0;
    const t0 = performance.now();
    for (let k = 0; k < rounds; k++)
      rows += (JSON.parse(JSON.stringify({ data: list })) as { data: unknown[] }).data.length;
    fastest = Math.min(fastest, performance.now() - t0);
    if (rows !== rounds * list.length) throw new Error('the probe lost rows');
  }
  return fastest;
}

/** Above this share of stolen CPU time in a phase, the host was busy with other guests. */
export const QUIET_STEAL_PCT = 5;

import { Client } from 'pg';
import {
  cpuSecondsByPid,
  cpuSecondsOf,
  cpuSecondsSince,
  jsonProbeMs,
  loopbackRoundTrip,
  machineMark,
  machineSince,
  parseCpuTimes,
  parseProcessStat,
} from '../../scripts/bench-event-day/machine';
import { adminUrl } from '../setup/test-db';

/**
 * bench:event-day's reading of the machine (scripts/bench-event-day/machine.ts): the host's
 * stolen share of the CPU time per phase, PostgreSQL's CPU, a loopback round trip.
 */
const STAT = (user: number, idle: number, steal: number, guest: number) =>
  `cpu  ${user} 0 50 ${idle} 10 0 5 ${steal} ${guest} 0\ncpu0 1 2 3 4 5 6 7 8 9 10\nintr 1 2 3\n`;

describe('bench machine reading', () => {
  it('reads the cpu line of /proc/stat without counting guest time twice', () => {
    // guest time is already in user: the total is user nice system idle iowait irq softirq steal
    expect(parseCpuTimes(STAT(100, 800, 35, 40))).toEqual({
      total: 100 + 50 + 800 + 10 + 5 + 35,
      idle: 810,
      steal: 35,
    });
  });

  it('refuses a /proc/stat without a cpu line', () => {
    expect(() => parseCpuTimes('intr 1 2 3\n')).toThrow('no cpu line');
  });

  it("reads a process's name and CPU seconds from its stat, whatever its name holds", () => {
    // fields after the name: state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime stime
    const stat = '4242 (post gres) x) S 1 2 3 4 5 6 7 8 9 10 250 130 0 0 20 0 1 0\n';
    expect(parseProcessStat(stat)).toEqual({ comm: 'post gres) x', cpuSeconds: 3.8 });
  });

  it("gives a phase's stolen and idle shares of every core's time", () => {
    // PostgreSQL: backend 7 used 0.5 s more, 8 ended (left out), 9 started and used 0.25 s
    const before = {
      times: parseCpuTimes(STAT(100, 800, 0, 0)),
      postgres: new Map([
        [7, 1.5],
        [8, 3],
      ]),
    };
    const after = {
      times: parseCpuTimes(STAT(400, 1400, 100, 0)),
      postgres: new Map([
        [7, 2.0],
        [9, 0.25],
      ]),
    };
    // 300 user + 600 idle + 100 steal = 1 000 ticks
    expect(machineSince(before, after)).toEqual({ stolenPct: 10, idlePct: 60, postgresCpuSeconds: 0.75 });
    expect(machineSince({ times: undefined, postgres: new Map() }, after)).toBeUndefined();
    // without /proc (not Linux) PostgreSQL's CPU is unknown, not 0
    expect(machineSince({ ...before, postgres: undefined }, after)?.postgresCpuSeconds).toBeNaN();
  });

  it('reads this machine: shares between 0 and 100 % over a busy moment', () => {
    const mark = machineMark();
    const until = Date.now() + 300;
    while (Date.now() < until); // one core busy for 0.3 s
    const share = machineSince(mark);
    expect(share).toBeDefined();
    expect(share!.stolenPct).toBeGreaterThanOrEqual(0);
    expect(share!.idlePct).toBeGreaterThanOrEqual(0);
    expect(share!.stolenPct + share!.idlePct).toBeLessThanOrEqual(100);
  });

  it("counts the CPU of PostgreSQL's processes", async () => {
    const db = new Client({ connectionString: adminUrl() });
    await db.connect();
    try {
      // in this connection's own backend, read while it still runs (an ended process's CPU is gone)
      await db.query('SET max_parallel_workers_per_gather = 0');
      const before = cpuSecondsOf('postgres');
      await db.query('SELECT count(*) FROM generate_series(1, 5000000)');
      expect(cpuSecondsOf('postgres') - before).toBeGreaterThan(0);
    } finally {
      await db.end();
    }
  });

  it('leaves out a PostgreSQL process that ended between two readings instead of counting its whole life negative', async () => {
    const db = new Client({ connectionString: adminUrl() });
    await db.connect();
    const { rows } = await db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    await db.query('SET max_parallel_workers_per_gather = 0');
    // about a second of CPU: more than the other backends use while this one ends
    await db.query('SELECT count(*) FROM generate_series(1, 15000000)');
    // this test runs on Linux (CI): /proc is there
    const running = () => cpuSecondsByPid('postgres')!;
    const before = running();
    const total = cpuSecondsOf('postgres');
    expect(before.get(rows[0].pid)).toBeGreaterThan(0);
    await db.end();
    // the backend's exit is asynchronous to the client's end
    for (let i = 0; i < 100 && running().has(rows[0].pid); i++) await new Promise((r) => setTimeout(r, 20));
    expect(running().has(rows[0].pid)).toBe(false);
    // the sum over the processes running now lost the ended backend's seconds
    expect(cpuSecondsOf('postgres') - total).toBeLessThan(0);
    expect(cpuSecondsSince('postgres', before)).toBeGreaterThanOrEqual(0);
  });

  it('times a loopback round trip to another process', async () => {
    const trip = await loopbackRoundTrip(50, 1);
    expect(trip.p50).toBeGreaterThan(0);
    expect(trip.p99).toBeGreaterThanOrEqual(trip.p50);
    // a round trip on loopback is well under a second even on a stalled machine
    expect(trip.p99).toBeLessThan(1_000_000);
  });

  it('times the fixed JSON probe on this machine', () => {
    const ms = jsonProbeMs(2);
    expect(ms).toBeGreaterThan(0);
    expect(ms).toBeLessThan(60_000);
  });
});

/**
 * Fairness across events (part of `npm run bench:matching`, or alone:
 * `npx tsx scripts/bench-matching-fairness.ts`):
 *  1. a pool of dancers (fixed city per person) attends a series of generated events (each
 *     draws a random ~60 % of the pool, 0-4 heats each); every pair of every run is taken
 *     as accepted. Once with the balance tier fed (received - done at the earlier events)
 *     and once with every balance 0 (the engine before fair matching). Printed: the share of
 *     dancers who recorded at least once and were recorded at least once, the largest
 *     imbalance |received - done|, and the spread of the balance (p5 / median / p95);
 *  2. engine time at 2 000 and 10 000 participants without balances (today's path) and with
 *     balances from -4 to 4 (median of 3 runs each).
 * Sets process.exitCode = 1 when coverage differs between the two series (the balance tier
 * must never cost coverage).
 */
import { runMatchingEngine, type EngineInput } from '../src/modules/matching/matching.engine.js';
import { generateEvent, mulberry32 } from './lib/generate-event.js';

const SEED = 20261126;
const POOL = Number(process.env.BENCH_FAIRNESS_POOL ?? 2000);
const EVENTS = Number(process.env.BENCH_FAIRNESS_EVENTS ?? 6);
const SHARE = 0.6;

interface Person {
  id: number;
  city: string | null;
  country: string | null;
}

function pool(): Person[] {
  const base = generateEvent(SEED, POOL);
  return base.participants.map((p) => ({ id: p.userId, city: p.city, country: p.country }));
}

/** Event e of the series: a seeded sample of the pool, generated heats, people's own cities. */
function eventOf(e: number, people: Person[]): EngineInput {
  const rnd = mulberry32(SEED + 1000 * (e + 1));
  const shuffled = [...people];
  for (let i = shuffled.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [shuffled[i], shuffled[j]] = [shuffled[j], shuffled[i]];
  }
  const attendees = shuffled.slice(0, Math.round(SHARE * people.length));
  const generated = generateEvent(SEED + e + 1, attendees.length);
  const idOf = new Map(generated.participants.map((p, i) => [p.userId, attendees[i].id]));
  return {
    ...generated,
    participants: generated.participants.map((p, i) => ({
      ...p,
      userId: attendees[i].id,
      city: attendees[i].city,
      country: attendees[i].country,
    })),
    heats: generated.heats.map((h) => ({ ...h, userId: idOf.get(h.userId)! })),
  };
}

function series(people: Person[], fair: boolean) {
  const done = new Map<number, number>();
  const received = new Map<number, number>();
  const danced = new Set<number>();
  let covered = 0;
  for (let e = 0; e < EVENTS; e++) {
    const input = eventOf(e, people);
    const withBalances: EngineInput = {
      ...input,
      participants: input.participants.map((p) => ({
        ...p,
        balance: fair ? (received.get(p.userId) ?? 0) - (done.get(p.userId) ?? 0) : 0,
      })),
    };
    const result = runMatchingEngine(withBalances);
    covered += result.stats.covered;
    const dancerOf = new Map(input.heats.map((h) => [h.id, h.userId]));
    for (const h of input.heats) danced.add(h.userId);
    for (const a of result.assignments) {
      done.set(a.recorderId, (done.get(a.recorderId) ?? 0) + 1);
      const d = dancerOf.get(a.heatId)!;
      received.set(d, (received.get(d) ?? 0) + 1);
    }
  }
  const dancers = [...danced];
  const both = dancers.filter((u) => (done.get(u) ?? 0) > 0 && (received.get(u) ?? 0) > 0).length;
  const balances = dancers.map((u) => (received.get(u) ?? 0) - (done.get(u) ?? 0)).sort((a, b) => a - b);
  const q = (f: number) => balances[Math.min(balances.length - 1, Math.floor(f * balances.length))];
  const maxImbalance = balances.reduce((m, b) => Math.max(m, Math.abs(b)), 0);
  const meanAbs = balances.reduce((s, b) => s + Math.abs(b), 0) / Math.max(1, balances.length);
  return { dancers: dancers.length, both, covered, maxImbalance, meanAbs, p5: q(0.05), p50: q(0.5), p95: q(0.95) };
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function timing(size: number, withBalances: boolean): number {
  const input = generateEvent(20261101 + size, size);
  const rnd = mulberry32(size);
  const participants = input.participants.map((p) => ({ ...p, balance: withBalances ? Math.floor(rnd() * 9) - 4 : 0 }));
  const times: number[] = [];
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    runMatchingEngine({ ...input, participants });
    times.push(performance.now() - t0);
  }
  return median(times);
}

const people = pool();
const fair = series(people, true);
const plain = series(people, false);
const pct = (n: number, d: number) => `${((100 * n) / d).toFixed(1)}%`;
console.log(
  `\nFairness across ${EVENTS} events (pool of ${POOL} dancers, each event ~${Math.round(SHARE * POOL)} of them; every proposed pair taken as accepted)`,
);
console.log(
  'series | dancers | recorded and were recorded | largest imbalance | mean |balance| | balance p5 / median / p95 | heats covered',
);
console.log('--- | --- | --- | --- | --- | --- | ---');
for (const [label, r] of [
  ['without the fairness term (every balance 0)', plain],
  ['with the fairness term', fair],
] as const)
  console.log(
    [
      label,
      r.dancers,
      `${r.both} (${pct(r.both, r.dancers)})`,
      r.maxImbalance,
      r.meanAbs.toFixed(2),
      `${r.p5} / ${r.p50} / ${r.p95}`,
      r.covered,
    ].join(' | '),
  );
if (fair.covered !== plain.covered) {
  console.error('the balance tier changed coverage');
  process.exitCode = 1;
}

console.log('\nEngine time with and without balances (median of 3 runs, ms)');
console.log('participants | balances all 0 | balances -4..4');
console.log('--- | --- | ---');
for (const size of [2000, 10000])
  console.log(`${size} | ${timing(size, false).toFixed(0)} | ${timing(size, true).toFixed(0)}`);

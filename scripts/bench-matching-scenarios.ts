/**
 * Matching scenarios (part of `npm run bench:matching`, or alone:
 * `npx tsx scripts/bench-matching-scenarios.ts`):
 *  1. churn: an event, its run, then 5 % new dancers and 5 % of the heats moved, then a
 *     re-run fed with the first run's pairs; prints the share of still-valid pairs kept
 *     (target ≥ 95 %) and checks coverage against the independent max flow;
 *  2. hard families (few recorders, many opt-outs, dense heat clusters, one city): the
 *     greedy pass the service used first (scripts/lib/greedy-matching.ts) beside the engine;
 *  3. for every event above: every unfilled heat carries a reason.
 * Sets process.exitCode = 1 when a check fails.
 */
import {
  runMatchingEngine,
  UNFILLED_REASONS,
  type EngineInput,
  type EngineResult,
} from '../src/modules/matching/matching.engine.js';
import { maxCoverage } from '../tests/matching/support/maxflow.js';
import { churnEvent } from './lib/churn.js';
import { generateEvent, type GenerateOptions } from './lib/generate-event.js';
import { greedyMatching } from './lib/greedy-matching.js';

const SEED = 20261124;
const CHURN_SIZES = [200, 2000, 10000];
const FAMILY_SIZES = [100, 300, 2000];
const KEPT_TARGET = 0.95;

let ok = true;
const pct = (n: number, d: number) => (d === 0 ? '-' : `${((100 * n) / d).toFixed(1)}%`);
const ms = (t0: number) => (performance.now() - t0).toFixed(0);

function printTable(title: string, header: string[], rows: (string | number)[][]): void {
  console.log(`\n${title}`);
  console.log(header.join(' | '));
  console.log(header.map(() => '---').join(' | '));
  for (const row of rows) console.log(row.join(' | '));
}

/** "n of m explained (REASON x, ...)"; a failed check when a heat lacks a valid reason. */
function reasonSummary(result: EngineResult): string {
  const counts = new Map<string, number>();
  const ids = result.unfilled.map((u) => u.heatId);
  const explained = result.unfilled.filter((u) => (UNFILLED_REASONS as readonly string[]).includes(u.reason)).length;
  const complete = explained === result.unassigned.length && ids.join() === result.unassigned.join();
  if (!complete) ok = false;
  for (const u of result.unfilled) counts.set(u.reason, (counts.get(u.reason) ?? 0) + 1);
  const detail = [...counts].map(([r, n]) => `${r} ${n}`).join(', ');
  return `${explained}/${result.unassigned.length} ${complete ? 'yes' : 'NO'}${detail ? ` (${detail})` : ''}`;
}

function churnTable(): void {
  const rows: (string | number)[][] = [];
  for (const size of CHURN_SIZES) {
    const before = generateEvent(SEED + size, size, { fixedShare: 0.02, forbiddenShare: 0.02 });
    const first = runMatchingEngine(before);
    const unchanged = runMatchingEngine({ ...before, previous: first.assignments });
    const after: EngineInput = { ...churnEvent(before, SEED - size), previous: first.assignments };
    const t0 = performance.now();
    const rerun = runMatchingEngine(after);
    const rerunMs = ms(t0);
    const optimum = maxCoverage(after);
    const { valid, kept, invalid } = rerun.reuse;
    const pass =
      optimum === rerun.stats.covered &&
      kept >= KEPT_TARGET * valid &&
      unchanged.reuse.kept === first.assignments.length;
    ok &&= pass;
    rows.push([
      size,
      after.participants.length,
      rerun.stats.heats,
      first.assignments.length,
      invalid.length,
      valid,
      kept,
      pct(kept, valid),
      rerun.stats.covered,
      optimum,
      optimum === rerun.stats.covered ? 'yes' : 'no',
      pct(unchanged.reuse.kept, first.assignments.length),
      rerunMs,
      reasonSummary(rerun),
      pass ? 'OK' : 'MISSED',
    ]);
  }
  printTable(
    "Churn: first run, then +5 % dancers and 5 % heats moved, then a re-run with the first run's pairs (target: kept ≥ 95 % of the still-valid pairs, coverage = max-flow optimum)",
    [
      'participants',
      'after churn',
      'open heats',
      'previous pairs',
      'no longer valid',
      'still valid',
      'kept',
      'kept share',
      'covered',
      'maxflow opt',
      'equal?',
      'unchanged re-run kept',
      're-run ms',
      'unfilled with a reason',
      'result',
    ],
    rows,
  );
}

const ONE_SLOT = [{ order: 1, divisionIds: [1, 2, 3, 4, 5, 6] }];
const FAMILIES: { name: string; options: GenerateOptions }[] = [
  { name: 'few recorders (4 heats each)', options: { heatsPerParticipant: [4, 4] } },
  { name: 'many opt-outs (60 %, 3-4 heats)', options: { optOutShare: 0.6, heatsPerParticipant: [3, 4] } },
  {
    name: 'dense clusters (2 heat numbers, one slot, 2-4 heats)',
    options: { heatNumbers: 2, slots: ONE_SLOT, heatsPerParticipant: [2, 4] },
  },
  { name: 'one city (70 %, 3-4 heats)', options: { mainCityShare: 0.7, heatsPerParticipant: [3, 4] } },
  {
    name: 'all combined (2-3 heats, 2 heat numbers, one slot, 60 % opt-outs, 70 % one city)',
    options: { heatsPerParticipant: [2, 3], heatNumbers: 2, slots: ONE_SLOT, optOutShare: 0.6, mainCityShare: 0.7 },
  },
];

function familyTable(): void {
  const rows: (string | number)[][] = [];
  for (const family of FAMILIES)
    for (const size of FAMILY_SIZES) {
      const input = generateEvent(SEED + size + 7 * FAMILIES.indexOf(family), size, family.options);
      const greedy = greedyMatching(input);
      const t0 = performance.now();
      const result = runMatchingEngine(input);
      const engineMs = ms(t0);
      const optimum = maxCoverage(input);
      ok &&= optimum === result.stats.covered && greedy.heats === result.stats.heats;
      const diff = result.stats.covered - greedy.covered;
      rows.push([
        family.name,
        size,
        result.stats.heats,
        `${greedy.covered} (${pct(greedy.covered, greedy.heats)})`,
        `${result.stats.covered} (${pct(result.stats.covered, result.stats.heats)})`,
        `${diff >= 0 ? '+' : ''}${diff} (${pct(diff, result.stats.heats)})`,
        optimum === result.stats.covered ? 'yes' : 'no',
        result.stats.optOutUses,
        engineMs,
        reasonSummary(result),
      ]);
    }
  printTable(
    'Hard scenario families: greedy pass (heats in order; same city, same country, anyone; cap 3; opted-out last) beside the engine',
    [
      'family',
      'participants',
      'heats',
      'greedy covered',
      'engine covered',
      'engine - greedy',
      'engine = maxflow opt?',
      'engine opt-out uses',
      'engine ms',
      'unfilled with a reason',
    ],
    rows,
  );
}

churnTable();
familyTable();
if (!ok) {
  console.error('a matching scenario check failed (kept share, optimal coverage or unfilled reasons)');
  process.exitCode = 1;
}

/**
 * Engine benchmark: seeded random events of growing size; checks the coverage against the
 * independent max flow and prints one row per size.
 *   npx tsx scripts/bench-matching-engine.ts [--history] [--worst]
 * --history adds a re-run scenario (2% accepted heats, 2% heats with rejected recorders).
 * --worst adds the heaviest case: every participant declares 4 heats (more heats than
 *         recorder capacity, so opt-out recorders are needed), 5% accepted, 5% rejected.
 */
import { runMatchingEngine, UNFILLED_REASONS } from '../src/modules/matching/matching.engine.js';
import { maxCoverage } from '../tests/matching/support/maxflow.js';
import { generateEvent, type GenerateOptions } from './lib/generate-event.js';

const SIZES = [50, 200, 1000, 2000, 5000, 10000];
const SEED = 20261101;

function pct(n: number, d: number): string {
  return d === 0 ? '-' : `${((100 * n) / d).toFixed(1)}%`;
}

function table(title: string, options: GenerateOptions): boolean {
  console.log(`\n${title}`);
  const header = [
    'participants',
    'heats',
    'covered',
    'maxflow opt',
    'equal?',
    'same city',
    'same country',
    'opt-out uses',
    'max load',
    'engine ms',
    'opt-out min?',
  ];
  console.log(header.join(' | '));
  console.log(header.map(() => '---').join(' | '));
  let ok = true;
  const explained: string[] = [];
  for (const size of SIZES) {
    const input = generateEvent(SEED + size, size, options);
    const t0 = process.hrtime.bigint();
    const result = runMatchingEngine(input);
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    const optimum = maxCoverage(input);
    const equal = optimum === result.stats.covered;
    // Fewest opt-out uses among maximum coverages = optimum - what the others can cover.
    const optOut = new Set(input.participants.filter((p) => p.optOut).map((p) => p.userId));
    const optOutMin = optimum - maxCoverage(input, { recorderFilter: (u) => !optOut.has(u) });
    const optOutOk = optOutMin === result.stats.optOutUses;
    const reasons = result.unfilled
      .filter((u) => (UNFILLED_REASONS as readonly string[]).includes(u.reason))
      .map((u) => u.heatId);
    const allExplained = reasons.join() === result.unassigned.join();
    explained.push(`${size}: ${reasons.length}/${result.unassigned.length}`);
    ok &&= equal && optOutOk && allExplained;
    const s = result.stats;
    console.log(
      [
        size,
        s.heats,
        s.covered,
        optimum,
        equal ? 'yes' : 'no',
        pct(s.sameCity, s.covered),
        pct(s.sameCountry, s.covered),
        s.optOutUses,
        s.maxLoad,
        ms.toFixed(0),
        optOutOk ? 'yes' : `no (${optOutMin})`,
      ].join(' | '),
    );
  }
  console.log(`unfilled heats with a reason (participants: explained/unfilled): ${explained.join(', ')}`);
  return ok;
}

let ok = table('Fresh event (first run)', {});
if (process.argv.includes('--history'))
  ok =
    table('Re-run (2% accepted, 2% heats with rejected recorders)', { fixedShare: 0.02, forbiddenShare: 0.02 }) && ok;
if (process.argv.includes('--worst'))
  ok =
    table('Worst case (4 heats each, 5% accepted, 5% heats with rejected recorders)', {
      heatsPerParticipant: [4, 4],
      fixedShare: 0.05,
      forbiddenShare: 0.05,
    }) && ok;
if (!ok) {
  console.error('coverage or opt-out uses differ from the independent max-flow optimum');
  process.exitCode = 1;
}

import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/logger.js';
import { systemActor } from '../../lib/actor.js';
import type { MatchingRunsService } from './matching-runs.service.js';
import { reasonOf } from '../../lib/connection-loss.js';
import { isDatabaseUnavailable } from '../../lib/prisma-errors.js';
import type { MatchingRunView } from './matching-runs.service.js';

/** MATCHING_SCHEDULER_ENABLED and MATCHING_SCHEDULER_INTERVAL_SECONDS (src/config). */
interface MatchingSchedulerSettings {
  enabled: boolean;
  intervalMs: number;
}

/** What the scheduler uses (built by src/container.ts). */
interface SchedulerDeps {
  matching: MatchingRunsService;
  logger: Logger;
  clock: Clock;
  config: { matchingScheduler: MatchingSchedulerSettings };
}

/**
 * One pass of the scheduler: closes runs left `running` by a dead process
 * (MatchingRunsService.closeInterruptedRuns), then runs every event that is due and that this
 * instance can lock (rules: MatchingRunsService.runDueEvents). Returns the runs it made.
 */
export async function matchingSchedulerTick(
  { matching }: Pick<SchedulerDeps, 'matching'>,
  now?: () => Date,
): Promise<MatchingRunView[]> {
  const actor = systemActor('scheduler');
  await matching.closeInterruptedRuns(actor);
  return matching.runDueEvents(actor, { now });
}

/**
 * Starts the scheduled matching runs (every `config.matchingScheduler.intervalMs`, first
 * shortly after the start so that a deadline that passed while the service was down is
 * handled). Returns a function that stops them, awaiting a run in progress.
 */
export function startMatchingScheduler(deps: SchedulerDeps): () => Promise<void> {
  const { logger, config } = deps;
  let current: Promise<unknown> | undefined;
  let stopped = false;
  const tick = () => {
    if (stopped || current) return; // never two ticks of one instance at once
    current = matchingSchedulerTick(deps)
      .catch((err: unknown) =>
        // a database outage is a warning without a stack (issue 23); the next tick tries again
        isDatabaseUnavailable(err)
          ? logger.warn({ reason: reasonOf(err) }, 'matching scheduler tick skipped: database unavailable')
          : logger.error({ err }, 'matching scheduler tick failed'),
      )
      .finally(() => {
        current = undefined;
      });
  };
  const timer = setInterval(tick, config.matchingScheduler.intervalMs);
  timer.unref();
  const first = setTimeout(tick, 1_000);
  first.unref();
  return async () => {
    stopped = true;
    clearInterval(timer);
    clearTimeout(first);
    await current;
  };
}

import type { PrismaClient } from '../../generated/prisma/client.js';
import type { Actor } from '../../lib/actor.js';
import type { Clock } from '../../lib/clock.js';
import { AppError } from '../../lib/errors.js';
import type { Logger } from '../../lib/logger.js';
import type { Metrics } from '../../lib/metrics.js';
import type { Notifier } from '../../realtime/notifier.js';
import type { ActivityLogService } from '../activity-log/activity-log.service.js';
import type { EventAccess } from '../events/event-access.js';
import { runMatchingEngine } from './matching.engine.js';
import { loadEngineInput } from './matching.loader.js';
import type { MatchingLock } from './matching.lock.js';
import { LockedRun, RUN_TRANSACTION_TIMEOUT_MS, type RunTimings } from './matching.run.js';
import { countByReason, type MatchingRunView } from './matching.views.js';
import { reuseOf } from './matching.writer.js';
import { unfilledHeatsOf } from './matching-run-reports.service.js';

export type { MatchingRunView } from './matching.views.js';
export { INTERRUPTED_RUN_ERROR, type RunTimings, type RunTrigger } from './matching.run.js';

/** After a failed scheduled run, the next attempt waits this long (no run row every tick). */
export const SCHEDULED_RETRY_AFTER_FAILURE_MS = 5 * 60_000;

/** What the runs use (built by src/container.ts). */
export interface MatchingRunsDeps {
  db: PrismaClient;
  notifier: Notifier;
  audit: ActivityLogService;
  eventAccess: EventAccess;
  lock: MatchingLock;
  logger: Logger;
  clock: Clock;
  metrics: Metrics;
}

/**
 * Matching runs around the pure engine (matching.engine.ts): manual, CLI and scheduled runs
 * (each one executed by matching.run.ts under the event's lock), the dry run, and the closing
 * of interrupted runs. The matching feature owns MatchingRun and
 * RecordingSuggestion (written by a run through matching.writer.ts, answered through
 * suggestions.service.ts) and the event's matchingRunAt stamp.
 */
export class MatchingRunsService {
  /** the run itself (matching.run.ts) */
  private readonly run: LockedRun;

  constructor(private readonly deps: MatchingRunsDeps) {
    this.run = new LockedRun(deps);
  }

  /**
   * Runs matching for the event of `slug` now (404 for an unknown event). Runs of one event
   * never overlap (advisory lock, matching.lock.ts): a second run while one is in progress
   * answers 409 MATCHING_RUN_IN_PROGRESS instead of queueing. A failed run is kept with
   * status "failed" and its error text, and returned like a successful one. `timings`, when
   * given, receives the milliseconds of the phases (scripts/bench-matching.ts).
   */
  async runNow(actor: Actor, input: { slug: string; timings?: RunTimings }): Promise<MatchingRunView> {
    const { timings } = input;
    const event = await this.deps.eventAccess.getBySlug(input.slug);
    const release = await this.deps.lock.tryLock(event.id);
    if (!release) throw new AppError('MATCHING_RUN_IN_PROGRESS');
    try {
      return await this.run.execute(event, 'manual', actor, timings);
    } finally {
      await release();
    }
  }

  /**
   * The scheduled runs: every event whose registration deadline has passed with no run since
   * (matchingRunAt null or earlier than the deadline) is run once, trigger "scheduled".
   * Exactly once per deadline across instances: each event is taken with a try-lock (a busy
   * event is skipped, its holder is running it) and re-checked under the lock, so an instance
   * that gets the lock after another one finished sees the fresh matchingRunAt. After a
   * failed scheduled run the event waits SCHEDULED_RETRY_AFTER_FAILURE_MS. Returns the runs made.
   */
  async runDueEvents(actor: Actor, input: { now?: () => Date } = {}): Promise<MatchingRunView[]> {
    const now = input.now ?? (() => this.deps.clock.now());
    const runs: MatchingRunView[] = [];
    for (const eventId of await this.dueEventIds(now())) {
      const release = await this.deps.lock.tryLock(eventId);
      if (!release) continue; // another instance (or a manual run) is on it
      try {
        const event = await this.deps.db.event.findUnique({ where: { id: eventId } });
        if (!event || !isDue(event, now()) || (await this.failedRecently(eventId, now()))) continue;
        runs.push(await this.run.execute(event, 'scheduled', actor, undefined));
      } catch (err) {
        this.deps.logger.error({ err, eventId }, 'scheduled matching run could not start');
      } finally {
        await release();
      }
    }
    return runs;
  }

  /**
   * Closes runs left `running` by a process that died: for each event with such a run, the
   * event's lock is tried first; when it is free no run of the event is alive (a run holds it
   * from before its row is written until after it is finished), so its `running` rows become
   * `failed` "Interrupted". A busy event is skipped: its holder is running it (any instance).
   * Called at start-up and on every scheduler tick. Returns the number of runs closed.
   */
  async closeInterruptedRuns(_actor: Actor, _input: Record<string, never> = {}): Promise<number> {
    const stale = await this.deps.db.matchingRun.findMany({
      where: { status: 'running' },
      distinct: ['eventId'],
      select: { eventId: true },
    });
    let closed = 0;
    for (const { eventId } of stale) {
      const release = await this.deps.lock.tryLock(eventId);
      if (!release) continue;
      try {
        closed += await this.run.failRunningRuns(eventId);
      } finally {
        await release();
      }
    }
    if (closed > 0) this.deps.logger.warn({ closed }, 'interrupted matching runs marked failed');
    return closed;
  }

  private async dueEventIds(now: Date): Promise<number[]> {
    const events = await this.deps.db.event.findMany({
      where: {
        registrationDeadline: { lte: now },
        OR: [{ matchingRunAt: null }, { matchingRunAt: { lt: this.deps.db.event.fields.registrationDeadline } }],
      },
      select: { id: true },
      orderBy: { registrationDeadline: 'asc' },
    });
    return events.map((e) => e.id);
  }

  private async failedRecently(eventId: number, now: Date): Promise<boolean> {
    const since = new Date(now.getTime() - SCHEDULED_RETRY_AFTER_FAILURE_MS);
    const failed = await this.deps.db.matchingRun.findFirst({
      where: { eventId, trigger: 'scheduled', status: 'failed', startedAt: { gt: since } },
      select: { id: true },
    });
    return failed !== null;
  }

  /**
   * Dry run: what a run of the event would do now — the pairs it would keep, add and drop
   * and the heats it would leave open, per reason — computed like a run but writing
   * nothing (no suggestions, no run row, no notification, no matchingRunAt). It takes no
   * lock: it reads one consistent snapshot (repeatable read) and may differ from a run made
   * after further changes. Event 404; audited as `matching_dry_run`.
   */
  async preview(actor: Actor, input: { slug: string }) {
    const event = await this.deps.eventAccess.getBySlug(input.slug);
    const { pending, result } = await this.deps.db.$transaction(
      async (tx) => {
        const loaded = await loadEngineInput(tx, event, this.deps.clock.now());
        return { pending: loaded.pending, result: runMatchingEngine(loaded.input) };
      },
      { isolationLevel: 'RepeatableRead', timeout: RUN_TRANSACTION_TIMEOUT_MS, maxWait: 10_000 },
    );
    const preview = {
      dryRun: true as const,
      heatsTotal: result.assignments.length + result.unassigned.length,
      heatsAssigned: result.assignments.length,
      heatsUnassigned: result.unassigned.length,
      reuse: reuseOf(pending, result),
      pins: { kept: result.pins.kept.length, dropped: result.pins.dropped.length },
      unfilledByReason: countByReason(result.unfilled),
    };
    await this.deps.audit.record(actor, {
      category: 'admin',
      action: 'matching_dry_run',
      resource: `event:${event.slug}`,
      metadata: preview,
    });
    return { ...preview, unfilledHeats: await unfilledHeatsOf(this.deps.db, result.unfilled) };
  }
}

function isDue(e: { registrationDeadline: Date | null; matchingRunAt: Date | null }, now: Date): boolean {
  if (!e.registrationDeadline || e.registrationDeadline > now) return false;
  return !e.matchingRunAt || e.matchingRunAt < e.registrationDeadline;
}

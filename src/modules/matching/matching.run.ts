import type { Event, Prisma, PrismaClient } from '../../generated/prisma/client.js';
import type { Actor } from '../../lib/actor.js';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/logger.js';
import type { Metrics } from '../../lib/metrics.js';
import type { Notifier } from '../../realtime/notifier.js';
import type { ActivityLogService } from '../activity-log/activity-log.service.js';
import type { EventAccess } from '../events/event-access.js';
import { runMatchingEngine, type EngineResult } from './matching.engine.js';
import { loadEngineInput } from './matching.loader.js';
import { runSelect, toRunView, type MatchingRunView } from './matching.views.js';
import { writeRunResult } from './matching.writer.js';

/*
 * One matching run of an event, under the event's lock (matching.lock.ts), shared by the
 * manual, CLI and scheduled runs of matching-runs.service.ts: the run row, load → engine →
 * write in one transaction, the metrics, the audit row and the notifications.
 */

export type RunTrigger = 'manual' | 'scheduled';

/** Milliseconds of the phases of a run (benchmark output); totalMs = run row to commit. */
export interface RunTimings {
  loadMs?: number;
  engineMs?: number;
  writeMs?: number;
  totalMs?: number;
}

/** Longest a run's write transaction may take (engine included) before PostgreSQL gives up. */
export const RUN_TRANSACTION_TIMEOUT_MS = 120_000;

/** The error text of a run whose process stopped before it finished. */
export const INTERRUPTED_RUN_ERROR = 'Interrupted (the service stopped during the run)';

/** What a run uses (the runs service's dependencies). */
export interface RunDeps {
  db: PrismaClient;
  /** the events feature stamps Event.matchingRunAt */
  eventAccess: EventAccess;
  notifier: Notifier;
  audit: ActivityLogService;
  logger: Logger;
  clock: Clock;
  metrics: Metrics;
}

/** A run of one event; the caller holds the event's lock for as long as it runs. */
export class LockedRun {
  constructor(private readonly deps: RunDeps) {}

  /** The caller holds the event's lock: no run of it is alive, a `running` row is a leftover. */
  async failRunningRuns(eventId: number): Promise<number> {
    const { count } = await this.deps.db.matchingRun.updateMany({
      where: { eventId, status: 'running' },
      data: { status: 'failed', finishedAt: this.deps.clock.now(), error: INTERRUPTED_RUN_ERROR },
    });
    return count;
  }

  /**
   * The run itself; the caller holds the event's lock. The MatchingRun row (status
   * "running") is committed first so that a failure can be recorded; loading, the engine and
   * every write then happen in ONE transaction, so readers see either the old suggestions
   * or the complete new set. Audited once (matching_run or matching_run_failed); users are
   * notified after the commit, once the run is returned. Observed in the matching_* metrics
   * once finished, either way.
   */
  async execute(
    event: Event,
    trigger: RunTrigger,
    actor: Actor,
    timings: RunTimings | undefined,
  ): Promise<MatchingRunView> {
    const t0 = performance.now();
    // Holding the lock, no other run of this event is alive: a "running" row left behind
    // by a crashed process is closed as failed.
    await this.failRunningRuns(event.id);
    const run = await this.deps.db.matchingRun.create({
      data: { eventId: event.id, trigger, status: 'running', triggeredById: actor.userId },
      select: { id: true },
    });
    let outcome: { result: EngineResult; dancerOf: Map<number, number> };
    try {
      outcome = await this.deps.db.$transaction((tx) => this.computeAndWrite(tx, event, run.id, timings), {
        timeout: RUN_TRANSACTION_TIMEOUT_MS,
        maxWait: 10_000,
      });
    } catch (err) {
      this.deps.logger.error({ err, eventId: event.id, runId: run.id }, 'matching run failed');
      const failed = await this.deps.db.matchingRun.update({
        where: { id: run.id },
        data: { status: 'failed', finishedAt: this.deps.clock.now(), error: errorText(err) },
        select: runSelect,
      });
      this.observeRun(toRunView(failed), t0);
      await this.auditRun(event, toRunView(failed), actor);
      return toRunView(failed);
    }
    if (timings) timings.totalMs = performance.now() - t0;
    const finished = toRunView(
      await this.deps.db.matchingRun.findUniqueOrThrow({ where: { id: run.id }, select: runSelect }),
    );
    this.observeRun(finished, t0);
    await this.auditRun(event, finished, actor);
    // The notices (one per dancer and recorder concerned: about every dancer of a big event)
    // go out once the caller has had its answer: the admin's request does not wait for
    // thousands of socket writes, and the dancers' notices follow it by one turn of the loop.
    setImmediate(() => {
      try {
        this.notifyAffectedUsers(event, run.id, outcome.result, outcome.dancerOf);
      } catch (err) {
        this.deps.logger.error({ err, eventId: event.id, runId: run.id }, 'matching run notices failed');
      }
    });
    return finished;
  }

  /** Load → engine → write, inside the run's transaction. */
  private async computeAndWrite(
    tx: Prisma.TransactionClient,
    event: Event,
    runId: string,
    timings: RunTimings | undefined,
  ) {
    const l0 = performance.now();
    const loaded = await loadEngineInput(tx, event, this.deps.clock.now());
    const { input } = loaded;
    const e0 = performance.now();
    const result = runMatchingEngine(input);
    const w0 = performance.now();
    const finishedAt = this.deps.clock.now();
    await writeRunResult(tx, { eventId: event.id, runId, loaded, result, finishedAt });
    await this.deps.eventAccess.markMatchingRun(event.id, finishedAt, tx);
    if (timings) Object.assign(timings, { loadMs: e0 - l0, engineMs: w0 - e0, writeMs: performance.now() - w0 });
    return { result, dancerOf: new Map(input.heats.map((h) => [h.id, h.userId])) };
  }

  private observeRun(run: MatchingRunView, startedAt: number): void {
    this.deps.metrics.matchingRunFinished({
      outcome: run.status === 'failed' ? 'failed' : 'completed',
      durationSeconds: (performance.now() - startedAt) / 1000,
      heatsCovered: run.heatsAssigned,
      heatsUnfilled: run.heatsUnassigned,
    });
  }

  private auditRun(event: Event, run: MatchingRunView, actor: Actor) {
    return this.deps.audit.record(actor, {
      category: 'admin',
      action: run.status === 'failed' ? 'matching_run_failed' : 'matching_run',
      success: run.status !== 'failed',
      resource: `event:${event.slug}`,
      metadata: {
        runId: run.id,
        trigger: run.trigger,
        heatsTotal: run.heatsTotal,
        heatsAssigned: run.heatsAssigned,
        heatsUnassigned: run.heatsUnassigned,
        ...(run.reuse ? { reuse: run.reuse } : {}),
        ...(run.status === 'success' ? { unfilledByReason: run.unfilledByReason } : {}),
        ...(run.error ? { error: run.error } : {}),
      },
    });
  }

  /**
   * `recording_suggestions_created` to every user the run concerns: dancers of the heats it
   * handled (toBeRecorded = their heats that got a recorder) and the recorders it proposed
   * (toRecord = heats they are asked to record). Called after the commit.
   */
  private notifyAffectedUsers(event: Event, runId: string, result: EngineResult, dancerOf: Map<number, number>): void {
    const counts = new Map<number, { toBeRecorded: number; toRecord: number }>();
    const entry = (userId: number) => {
      let c = counts.get(userId);
      if (!c) counts.set(userId, (c = { toBeRecorded: 0, toRecord: 0 }));
      return c;
    };
    for (const a of result.assignments) {
      entry(dancerOf.get(a.heatId)!).toBeRecorded++;
      entry(a.recorderId).toRecord++;
    }
    for (const heatId of result.unassigned) entry(dancerOf.get(heatId)!);
    for (const [userId, c] of counts) {
      this.deps.notifier.toUser(userId, 'recording_suggestions_created', { eventSlug: event.slug, runId, ...c });
    }
  }
}

function errorText(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.length > 2000 ? `${text.slice(0, 2000)}…` : text;
}

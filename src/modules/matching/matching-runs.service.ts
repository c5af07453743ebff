import type { Event, Prisma, PrismaClient } from '../../generated/prisma/client.js';
import type { Actor } from '../../lib/actor.js';
import type { Clock } from '../../lib/clock.js';
import { AppError } from '../../lib/errors.js';
import type { Logger } from '../../lib/logger.js';
import type { Metrics } from '../../lib/metrics.js';
import type { Notifier } from '../../realtime/notifier.js';
import type { ActivityLogService } from '../activity-log/activity-log.service.js';
import type { EventAccess } from '../events/event-access.js';
import { runMatchingEngine, type EngineResult } from './matching.engine.js';
import { loadEngineInput } from './matching.loader.js';
import type { MatchingLock } from './matching.lock.js';
import { countByReason, runSelect, toRunView, type MatchingRunView } from './matching.views.js';
import { reuseOf, writeRunResult } from './matching.writer.js';
import { unfilledHeatsOf } from './matching-run-reports.service.js';

export type { MatchingRunView } from './matching.views.js';

export type RunTrigger = 'manual' | 'scheduled';

/** Milliseconds of the phases of a run (benchmark output); totalMs = run row to commit. */
export interface RunTimings {
  loadMs?: number;
  engineMs?: number;
  writeMs?: number;
  totalMs?: number;
}

/** Longest a run's write transaction may take (engine included) before PostgreSQL gives up. */
const RUN_TRANSACTION_TIMEOUT_MS = 120_000;
/** After a failed scheduled run, the next attempt waits this long (no run row every tick). */
export const SCHEDULED_RETRY_AFTER_FAILURE_MS = 5 * 60_000;

/** The error text of a run whose process stopped before it finished. */
export const INTERRUPTED_RUN_ERROR = 'Interrupted (the service stopped during the run)';

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
 * Matching runs around the pure engine (matching.engine.ts): manual, CLI and scheduled runs,
 * the dry run, and the closing of interrupted runs. The matching feature owns MatchingRun and
 * RecordingSuggestion (written by a run through matching.writer.ts, answered through
 * suggestions.service.ts) and the event's matchingRunAt stamp.
 */
export class MatchingRunsService {
  constructor(private readonly deps: MatchingRunsDeps) {}

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
      return await this.executeLockedRun(event, 'manual', actor, timings);
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
        runs.push(await this.executeLockedRun(event, 'scheduled', actor, undefined));
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
        closed += await this.failRunningRuns(eventId);
      } finally {
        await release();
      }
    }
    if (closed > 0) this.deps.logger.warn({ closed }, 'interrupted matching runs marked failed');
    return closed;
  }

  /** The caller holds the event's lock: no run of it is alive, a `running` row is a leftover. */
  private async failRunningRuns(eventId: number): Promise<number> {
    const { count } = await this.deps.db.matchingRun.updateMany({
      where: { eventId, status: 'running' },
      data: { status: 'failed', finishedAt: this.deps.clock.now(), error: INTERRUPTED_RUN_ERROR },
    });
    return count;
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
   * The run itself; the caller holds the event's lock. The MatchingRun row (status
   * "running") is committed first so that a failure can be recorded; loading, the engine and
   * every write then happen in ONE transaction, so readers see either the old suggestions
   * or the complete new set. Audited once (matching_run or matching_run_failed); users are
   * notified after the commit. Observed in the matching_* metrics once finished, either way.
   */
  private async executeLockedRun(
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
    this.notifyAffectedUsers(event, run.id, outcome.result, outcome.dancerOf);
    await this.auditRun(event, finished, actor);
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

function isDue(e: { registrationDeadline: Date | null; matchingRunAt: Date | null }, now: Date): boolean {
  if (!e.registrationDeadline || e.registrationDeadline > now) return false;
  return !e.matchingRunAt || e.matchingRunAt < e.registrationDeadline;
}

function errorText(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.length > 2000 ? `${text.slice(0, 2000)}…` : text;
}

import type { AuthUser } from '../../lib/auth.js';
import type { Event, Prisma, PrismaClient } from '../../generated/prisma/client.js';
import { systemActor, type Actor } from '../../lib/actor.js';
import type { Clock } from '../../lib/clock.js';
import { AppError } from '../../lib/errors.js';
import { sql, toDate, type SqlReader } from '../../lib/sql.js';
import type { Logger } from '../../lib/logger.js';
import type { Metrics } from '../../lib/metrics.js';
import { isUniqueViolation } from '../../lib/prisma-errors.js';
import type { CsvFile } from '../../lib/http.js';
import type { Notifier } from '../../realtime/notifier.js';
import type { ActivityLogService } from '../activity-log/activity-log.service.js';
import type { EventAccess } from '../events/event-access.js';
import type { MatchesService } from '../matches/matches.service.js';
import { runMatchingEngine, type EngineResult, type EngineUnfilled } from './matching.engine.js';
import { EXPORT_COLUMNS, EXPORT_STATUSES, exportSelect, toExportRecord, type ExportRecord } from './matching.export.js';
import { loadEngineInput } from './matching.loader.js';
import type { MatchingLock } from './matching.lock.js';
import {
  countByReason,
  runSelect,
  storedUnfilled,
  suggestionOrder,
  suggestionSelect,
  suggestionsJson,
  toRunView,
  toUnfilledHeats,
  unfilledHeatSelect,
  type MatchingRunView,
  type SuggestionJson,
  type SuggestionView,
} from './matching.views.js';
import { reuseOf, writeRunResult } from './matching.writer.js';

export type { MatchingRunView, SuggestionView } from './matching.views.js';

export type RunTrigger = 'manual' | 'scheduled';
export type Decision = 'accepted' | 'rejected';

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

/** Rows per page of the CSV export. */
const EXPORT_PAGE_SIZE = 500;

/** The error text of a run whose process stopped before it finished. */
export const INTERRUPTED_RUN_ERROR = 'Interrupted (the service stopped during the run)';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface MySuggestionsRow {
  registrationDeadline: Date | null;
  matchingRunAt: Date | null;
  isParticipant: boolean;
  /** null unless the caller participates */
  toBeRecorded: SuggestionJson[] | null;
  toRecord: SuggestionJson[] | null;
}

/**
 * The event of a slug ($1), whether the caller ($2) participates, and (for a participant)
 * the suggestions for the caller's heats and those the caller records, as json arrays.
 */
const mySuggestions = sql(
  'matching_my_suggestions',
  `SELECT e."registrationDeadline", e."matchingRunAt", (me.id IS NOT NULL) AS "isParticipant",
          CASE WHEN me.id IS NOT NULL THEN ${suggestionsJson('"dancerId"', 'e.id', '$2')} END AS "toBeRecorded",
          CASE WHEN me.id IS NOT NULL THEN ${suggestionsJson('"recorderId"', 'e.id', '$2')} END AS "toRecord"
   FROM "Event" e
   LEFT JOIN "EventParticipant" me ON me."eventId" = e.id AND me."userId" = $2
   WHERE e.slug = $1`,
);

export interface MatchingSettings {
  /** accepting a suggestion needs a verified e-mail address, like POST /matches (REQUIRE_EMAIL_VERIFICATION) */
  requireEmailVerification: boolean;
}

/**
 * Recording-partner matching around the pure engine (matching.engine.ts): runs (manual,
 * CLI, scheduled), the suggestions they leave, and the recorders' answers.
 */
export class MatchingService {
  constructor(
    private readonly db: PrismaClient,
    private readonly sql: SqlReader,
    private readonly notifier: Notifier,
    private readonly audit: ActivityLogService,
    private readonly eventAccess: EventAccess,
    private readonly lock: MatchingLock,
    private readonly logger: Logger,
    private readonly clock: Clock,
    private readonly matches: MatchesService,
    private readonly metrics: Metrics,
    private readonly settings: MatchingSettings,
  ) {}

  // -------------------------------------------------------------------------------------
  // Runs

  /**
   * Runs matching for the event of `slug` now (404 for an unknown event). Runs of one event
   * never overlap (advisory lock, matching.lock.ts): a second run while one is in progress
   * answers 409 MATCHING_RUN_IN_PROGRESS instead of queueing. A failed run is kept with
   * status "failed" and its error text, and returned like a successful one.
   */
  async runNow(slug: string, actor: Actor, timings?: RunTimings): Promise<MatchingRunView> {
    const event = await this.eventAccess.getBySlug(slug);
    const release = await this.lock.tryLock(event.id);
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
  async runDueEvents(now: () => Date = () => this.clock.now()): Promise<MatchingRunView[]> {
    const runs: MatchingRunView[] = [];
    for (const eventId of await this.dueEventIds(now())) {
      const release = await this.lock.tryLock(eventId);
      if (!release) continue; // another instance (or a manual run) is on it
      try {
        const event = await this.db.event.findUnique({ where: { id: eventId } });
        if (!event || !isDue(event, now()) || (await this.failedRecently(eventId, now()))) continue;
        runs.push(await this.executeLockedRun(event, 'scheduled', systemActor('scheduler'), undefined));
      } catch (err) {
        this.logger.error({ err, eventId }, 'scheduled matching run could not start');
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
  async closeInterruptedRuns(): Promise<number> {
    const stale = await this.db.matchingRun.findMany({
      where: { status: 'running' },
      distinct: ['eventId'],
      select: { eventId: true },
    });
    let closed = 0;
    for (const { eventId } of stale) {
      const release = await this.lock.tryLock(eventId);
      if (!release) continue;
      try {
        closed += await this.failRunningRuns(eventId);
      } finally {
        await release();
      }
    }
    if (closed > 0) this.logger.warn({ closed }, 'interrupted matching runs marked failed');
    return closed;
  }

  /** The caller holds the event's lock: no run of it is alive, a `running` row is a leftover. */
  private async failRunningRuns(eventId: number): Promise<number> {
    const { count } = await this.db.matchingRun.updateMany({
      where: { eventId, status: 'running' },
      data: { status: 'failed', finishedAt: this.clock.now(), error: INTERRUPTED_RUN_ERROR },
    });
    return count;
  }

  private async dueEventIds(now: Date): Promise<number[]> {
    const events = await this.db.event.findMany({
      where: {
        registrationDeadline: { lte: now },
        OR: [{ matchingRunAt: null }, { matchingRunAt: { lt: this.db.event.fields.registrationDeadline } }],
      },
      select: { id: true },
      orderBy: { registrationDeadline: 'asc' },
    });
    return events.map((e) => e.id);
  }

  private async failedRecently(eventId: number, now: Date): Promise<boolean> {
    const since = new Date(now.getTime() - SCHEDULED_RETRY_AFTER_FAILURE_MS);
    const failed = await this.db.matchingRun.findFirst({
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
    const run = await this.db.matchingRun.create({
      data: { eventId: event.id, trigger, status: 'running', triggeredById: actor.userId },
      select: { id: true },
    });
    let outcome: { result: EngineResult; dancerOf: Map<number, number> };
    try {
      outcome = await this.db.$transaction((tx) => this.computeAndWrite(tx, event, run.id, timings), {
        timeout: RUN_TRANSACTION_TIMEOUT_MS,
        maxWait: 10_000,
      });
    } catch (err) {
      this.logger.error({ err, eventId: event.id, runId: run.id }, 'matching run failed');
      const failed = await this.db.matchingRun.update({
        where: { id: run.id },
        data: { status: 'failed', finishedAt: this.clock.now(), error: errorText(err) },
        select: runSelect,
      });
      this.observeRun(toRunView(failed), t0);
      await this.auditRun(event, toRunView(failed), actor);
      return toRunView(failed);
    }
    if (timings) timings.totalMs = performance.now() - t0;
    const finished = toRunView(
      await this.db.matchingRun.findUniqueOrThrow({ where: { id: run.id }, select: runSelect }),
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
    const loaded = await loadEngineInput(tx, event, this.clock.now());
    const { input } = loaded;
    const e0 = performance.now();
    const result = runMatchingEngine(input);
    const w0 = performance.now();
    const finishedAt = this.clock.now();
    await writeRunResult(tx, { eventId: event.id, runId, loaded, result, finishedAt });
    if (timings) Object.assign(timings, { loadMs: e0 - l0, engineMs: w0 - e0, writeMs: performance.now() - w0 });
    return { result, dancerOf: new Map(input.heats.map((h) => [h.id, h.userId])) };
  }

  private observeRun(run: MatchingRunView, startedAt: number): void {
    this.metrics.matchingRunFinished({
      outcome: run.status === 'failed' ? 'failed' : 'completed',
      durationSeconds: (performance.now() - startedAt) / 1000,
      heatsCovered: run.heatsAssigned,
      heatsUnfilled: run.heatsUnassigned,
    });
  }

  private auditRun(event: Event, run: MatchingRunView, actor: Actor) {
    return this.audit.record(actor, {
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
  async preview(slug: string, actor: Actor) {
    const event = await this.eventAccess.getBySlug(slug);
    const { pending, result } = await this.db.$transaction(
      async (tx) => {
        const loaded = await loadEngineInput(tx, event, this.clock.now());
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
    await this.audit.record(actor, {
      category: 'admin',
      action: 'matching_dry_run',
      resource: `event:${event.slug}`,
      metadata: preview,
    });
    return { ...preview, unfilledHeats: await this.unfilledHeats(result.unfilled) };
  }

  private async unfilledHeats(unfilled: EngineUnfilled[]) {
    if (!unfilled.length) return [];
    const rows = await this.db.heat.findMany({
      where: { id: { in: unfilled.map((u) => u.heatId) } },
      select: unfilledHeatSelect,
    });
    return toUnfilledHeats(unfilled, rows);
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
      this.notifier.toUser(userId, 'recording_suggestions_created', { eventSlug: event.slug, runId, ...c });
    }
  }

  // -------------------------------------------------------------------------------------
  // Reading suggestions and runs

  /**
   * The caller's view: who records my heats, which heats I record (every status). Check
   * order: event 404, participant 403. One statement (mySuggestions).
   */
  async listMine(slug: string, userId: number) {
    const [row] = await this.sql.rows<MySuggestionsRow>(mySuggestions, [slug, userId]);
    if (!row) throw new AppError('EVENT_NOT_FOUND');
    if (!row.isParticipant) throw new AppError('NOT_PARTICIPANT');
    const views = (list: SuggestionJson[] | null) =>
      (list ?? []).map((v) => ({ ...v, createdAt: toDate(v.createdAt) }));
    return {
      toBeRecorded: views(row.toBeRecorded),
      toRecord: views(row.toRecord),
      registrationDeadline: row.registrationDeadline,
      matchingRunAt: row.matchingRunAt,
    };
  }

  /** The event's runs, newest first (event 404). */
  async listRuns(slug: string): Promise<MatchingRunView[]> {
    const event = await this.eventAccess.getBySlug(slug);
    const runs = await this.db.matchingRun.findMany({
      where: { eventId: event.id },
      select: runSelect,
      orderBy: [{ startedAt: 'desc' }, { id: 'desc' }],
    });
    return runs.map(toRunView);
  }

  /**
   * One run with the heats it left open, each with its reason, heat and dancer (null once
   * the heat was deleted). Check order: event 404, run of this event 404.
   */
  async getRun(slug: string, runId: string) {
    const event = await this.eventAccess.getBySlug(slug);
    const run = await this.findRun(event.id, runId);
    return { ...toRunView(run), unfilledHeats: await this.unfilledHeats(storedUnfilled(run)) };
  }

  /**
   * The suggestions a run created that still exist (a later run keeps the pending ones it can, replaces the rest).
   * Check order: event 404, run of this event 404 (unknown or non-UUID id).
   */
  async listRunSuggestions(slug: string, runId: string): Promise<SuggestionView[]> {
    const event = await this.eventAccess.getBySlug(slug);
    const run = await this.findRun(event.id, runId);
    return this.db.recordingSuggestion.findMany({
      where: { originRunId: run.id },
      select: suggestionSelect,
      orderBy: suggestionOrder,
    });
  }

  /**
   * The organiser's CSV of the plan the run left, as it stands now: every heat with its
   * pending, accepted or not_found suggestion (rejected pairs are history), in heats/me order.
   * Only the latest successful run has a current plan (a later run rewrites it; a failed run
   * never wrote one). Check order: event 404, run of this event 404, latest successful run
   * 409 MATCHING_RUN_NOT_CURRENT. Audited as `matching_run_export`. The records are read
   * page by page while they are sent.
   */
  async exportPlan(slug: string, runId: string, actor: Actor): Promise<CsvFile<ExportRecord>> {
    const event = await this.eventAccess.getBySlug(slug);
    const run = await this.findRun(event.id, runId);
    const latest = await this.db.matchingRun.findFirst({
      where: { eventId: event.id, status: 'success' },
      select: { id: true },
      orderBy: [{ startedAt: 'desc' }, { id: 'desc' }],
    });
    if (latest?.id !== run.id) throw new AppError('MATCHING_RUN_NOT_CURRENT');
    await this.audit.record(actor, {
      category: 'admin',
      action: 'matching_run_export',
      resource: `event:${event.slug}`,
      metadata: { runId: run.id },
    });
    return {
      filename: `matching-${event.slug}-${run.id}.csv`,
      columns: EXPORT_COLUMNS,
      records: this.exportRecords(event.id),
    };
  }

  /** The plan's ids in order first (small), then the rows a page at a time: the file is never held whole. */
  private async *exportRecords(eventId: number): AsyncGenerator<ExportRecord> {
    const where = { eventId, status: { in: EXPORT_STATUSES } };
    const ids = (
      await this.db.recordingSuggestion.findMany({ where, select: { id: true }, orderBy: suggestionOrder })
    ).map((r) => r.id);
    const select = exportSelect(eventId);
    for (let i = 0; i < ids.length; i += EXPORT_PAGE_SIZE) {
      const page = ids.slice(i, i + EXPORT_PAGE_SIZE);
      const rows = await this.db.recordingSuggestion.findMany({ where: { id: { in: page } }, select });
      const byId = new Map(rows.map((r) => [r.id, r]));
      for (const id of page) {
        const row = byId.get(id);
        if (row) yield toExportRecord(row); // deleted meanwhile by a later run: left out
      }
    }
  }

  private async findRun(eventId: number, runId: string) {
    const run = UUID.test(runId)
      ? await this.db.matchingRun.findFirst({ where: { id: runId, eventId }, select: runSelect })
      : null;
    if (!run) throw new AppError('MATCHING_RUN_NOT_FOUND');
    return run;
  }

  // -------------------------------------------------------------------------------------
  // Accepting or rejecting

  /**
   * The recorder answers a suggestion (the dancer may reject it too). Check order: accepting needs a verified e-mail 403 (the
   * rule of POST /matches, checked first as there; rejecting does not), event 404, participant 403, suggestion
   * of this event 404 (unknown id; null = a malformed one), recorder 403 (dancer: rejecting only), a blocked
   * pair accepting 403 USER_BLOCKED (it stays pending). Transitions: pending →
   * accepted | rejected; repeating the current answer is a no-op (200); any other change →
   * 409. Accepting creates or reuses an accepted match between dancer and recorder with its
   * private room, in the same transaction; the dancer gets `match_accepted` after the commit
   * when a match became accepted. The transaction waits for a matching run of the event in
   * progress (shared advisory lock), so a run never replaces a suggestion being accepted.
   * A change is audited (recording_suggestion_accept / _reject); a no-op is not.
   */
  async decide(slug: string, suggestionId: number | null, status: Decision, recorder: AuthUser, actor: Actor) {
    if (status === 'accepted' && this.settings.requireEmailVerification && !recorder.emailVerified)
      throw new AppError('EMAIL_NOT_VERIFIED');
    const event = await this.eventAccess.getBySlug(slug);
    const userId = actor.userId;
    if (userId === null) throw new AppError('AUTH_REQUIRED');
    await this.eventAccess.assertParticipant(event.id, userId);
    if (suggestionId === null) throw new AppError('SUGGESTION_NOT_FOUND');
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.decideOnce(event, suggestionId, userId, status, actor);
      } catch (err) {
        // Two suggestions of the same pair accepted at once: the second sees the first's match on retry.
        if (attempt < 2 && isUniqueViolation(err)) continue;
        throw err;
      }
    }
  }

  private async decideOnce(event: Event, suggestionId: number, userId: number, status: Decision, actor: Actor) {
    const outcome = await this.db.$transaction((tx) => this.writeDecision(tx, event, suggestionId, userId, status), {
      timeout: 30_000,
      maxWait: 10_000,
    });
    const view = await this.db.recordingSuggestion.findUniqueOrThrow({
      where: { id: suggestionId },
      select: suggestionSelect,
    });
    const match = outcome.match
      ? {
          id: outcome.match.id,
          slug: outcome.match.slug,
          status: outcome.match.status,
          roomId: outcome.match.chatRoom?.id ?? null,
        }
      : status === 'accepted'
        ? await this.currentMatchOf(event.id, view.dancer.id, userId)
        : null;
    if (!outcome.changed) return { ...view, match };
    await this.audit.record(actor, {
      category: 'match',
      action: status === 'accepted' ? 'recording_suggestion_accept' : 'recording_suggestion_reject',
      resource: `event:${event.slug}`,
      metadata: {
        suggestionId,
        heatId: view.heat.id,
        dancerId: view.dancer.id,
        by: view.dancer.id === userId ? 'dancer' : 'recorder',
        ...(match ? { matchSlug: match.slug } : {}),
      },
    });
    if (outcome.match?.becameAccepted && view.recorder) {
      this.notifier.toUser(view.dancer.id, 'match_accepted', {
        matchSlug: outcome.match.slug,
        event: { slug: event.slug, name: event.name },
        from: view.recorder,
      });
    }
    return { ...view, match };
  }

  private async writeDecision(
    tx: Prisma.TransactionClient,
    event: Event,
    suggestionId: number,
    userId: number,
    status: Decision,
  ) {
    await this.lock.holdSharedInTransaction(tx, event.id);
    const suggestion = await tx.recordingSuggestion.findFirst({ where: { id: suggestionId, eventId: event.id } });
    if (!suggestion) throw new AppError('SUGGESTION_NOT_FOUND');
    // Accepting is the recorder's; rejecting is open to the recorder and to the dancer.
    const mayAnswer =
      suggestion.recorderId === userId ||
      (status === 'rejected' && suggestion.dancerId === userId && suggestion.recorderId !== null);
    if (!mayAnswer) throw new AppError('NOT_RECORDER');
    if (suggestion.status === status) return { changed: false, match: null };
    if (suggestion.status !== 'pending') throw new AppError('SUGGESTION_NOT_PENDING');
    if (status === 'accepted' && (await isBlockedPair(tx, suggestion.dancerId, userId)))
      throw new AppError('USER_BLOCKED');
    const updated = await tx.recordingSuggestion.updateMany({
      where: { id: suggestion.id, status: 'pending' },
      data: { status, respondedAt: this.clock.now() },
    });
    if (updated.count === 0) throw new AppError('SUGGESTION_NOT_PENDING');
    if (status === 'rejected') return { changed: true, match: null };
    const match = await this.matches.createOrReuseAcceptedMatch(tx, {
      eventId: event.id,
      userAId: suggestion.dancerId,
      userBId: userId,
      suggestionId: suggestion.id,
    });
    return { changed: true, match };
  }

  private async currentMatchOf(eventId: number, a: number, b: number) {
    const m = await this.db.match.findFirst({
      where: {
        eventId,
        status: 'accepted',
        OR: [
          { user1Id: a, user2Id: b },
          { user1Id: b, user2Id: a },
        ],
      },
      select: { id: true, slug: true, status: true, chatRoom: { select: { id: true } } },
    });
    return m ? { id: m.id, slug: m.slug, status: m.status, roomId: m.chatRoom?.id ?? null } : null;
  }
}

/** A UserBlock row between the two, in either direction. */
async function isBlockedPair(tx: Prisma.TransactionClient, a: number, b: number): Promise<boolean> {
  const n = await tx.userBlock.count({
    where: {
      OR: [
        { blockerId: a, blockedId: b },
        { blockerId: b, blockedId: a },
      ],
    },
  });
  return n > 0;
}

function isDue(e: { registrationDeadline: Date | null; matchingRunAt: Date | null }, now: Date): boolean {
  if (!e.registrationDeadline || e.registrationDeadline > now) return false;
  return !e.matchingRunAt || e.matchingRunAt < e.registrationDeadline;
}

function errorText(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.length > 2000 ? `${text.slice(0, 2000)}…` : text;
}

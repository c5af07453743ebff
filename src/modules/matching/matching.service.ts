import type { Request } from 'express';
import type { Event, Prisma } from '../../generated/prisma/client.js';
import { conflict, forbidden, notFound } from '../../lib/errors.js';
import { logger } from '../../lib/logger.js';
import { prisma } from '../../lib/prisma.js';
import { isUniqueViolation } from '../../lib/prisma-errors.js';
import { userSummarySelect } from '../../lib/user-summary.js';
import { emitToUser } from '../../realtime/io.js';
import { logActivity } from '../activity-log/activity-log.service.js';
import { assertParticipant } from '../events/event-access.js';
import { heatSelect } from '../heats/heats.service.js';
import { createOrReuseAcceptedMatch } from '../matches/matches.service.js';
import { runMatchingEngine, type EngineResult } from './matching.engine.js';
import { loadEngineInput } from './matching.loader.js';
import { MATCHING_LOCK_CLASS, tryLockEvent } from './matching.lock.js';
import { writeRunResult } from './matching.writer.js';

export const MatchingMessages = {
  runInProgress: 'A matching run is already in progress for this event',
  runNotFound: 'Matching run not found',
  suggestionNotFound: 'Suggestion not found',
  onlyRecorder: 'Only the recorder can accept or reject this suggestion',
  notPending: 'Only a pending suggestion can be accepted or rejected',
} as const;

export type RunTrigger = 'manual' | 'scheduled';

export interface RunActor {
  /** the admin who asked for the run; null for scheduled and CLI runs */
  userId: number | null;
  username?: string | null;
  req?: Request;
}

/** Milliseconds of the phases of a run (benchmark output); totalMs = run row to commit. */
export interface RunTimings {
  loadMs?: number;
  engineMs?: number;
  writeMs?: number;
  totalMs?: number;
}

const runSelect = {
  id: true,
  eventId: true,
  trigger: true,
  status: true,
  startedAt: true,
  finishedAt: true,
  heatsTotal: true,
  heatsAssigned: true,
  heatsUnassigned: true,
  error: true,
} as const;

export type MatchingRunView = Prisma.MatchingRunGetPayload<{ select: typeof runSelect }>;

/** Longest a run's write transaction may take (engine included) before PostgreSQL gives up. */
const RUN_TRANSACTION_TIMEOUT_MS = 120_000;

/**
 * Runs matching for an event now. Runs of one event never overlap (advisory lock, see
 * matching.lock.ts): a second run while one is in progress answers 409 "A matching run is
 * already in progress for this event" instead of queueing. A failed run is kept with
 * status "failed" and its error text, and returned like a successful one.
 */
export async function runMatchingNow(
  event: Event,
  trigger: RunTrigger,
  actor: RunActor,
  timings?: RunTimings,
): Promise<MatchingRunView> {
  const release = await tryLockEvent(event.id);
  if (!release) throw conflict(MatchingMessages.runInProgress, 'MATCHING_RUN_IN_PROGRESS');
  try {
    return await executeLockedRun(event, trigger, actor, timings);
  } finally {
    await release();
  }
}

/**
 * The run itself; the caller holds the event's lock. The MatchingRun row (status
 * "running") is committed first so that a failure can be recorded; loading, the engine and
 * every write then happen in ONE transaction, so readers see either the old suggestions
 * or the complete new set.
 */
export async function executeLockedRun(
  event: Event,
  trigger: RunTrigger,
  actor: RunActor,
  timings?: RunTimings,
): Promise<MatchingRunView> {
  const t0 = performance.now();
  // Holding the lock, no other run of this event is alive: a "running" row left behind
  // by a crashed process is closed as failed.
  await prisma.matchingRun.updateMany({
    where: { eventId: event.id, status: 'running' },
    data: { status: 'failed', finishedAt: new Date(), error: 'Interrupted (the service stopped during the run)' },
  });
  const run = await prisma.matchingRun.create({
    data: { eventId: event.id, trigger, status: 'running', triggeredById: actor.userId },
    select: { id: true },
  });
  let outcome: { result: EngineResult; dancerOf: Map<number, number> };
  try {
    outcome = await prisma.$transaction(
      async (tx) => {
        const l0 = performance.now();
        const input = await loadEngineInput(tx, event);
        const e0 = performance.now();
        if (timings) timings.loadMs = e0 - l0;
        const result = runMatchingEngine(input);
        if (timings) timings.engineMs = performance.now() - e0;
        const w0 = performance.now();
        await writeRunResult(tx, { eventId: event.id, runId: run.id, heats: input.heats, result, finishedAt: new Date() });
        if (timings) timings.writeMs = performance.now() - w0;
        return { result, dancerOf: new Map(input.heats.map((h) => [h.id, h.userId])) };
      },
      { timeout: RUN_TRANSACTION_TIMEOUT_MS, maxWait: 10_000 },
    );
  } catch (err) {
    logger.error({ err, eventId: event.id, runId: run.id }, 'matching run failed');
    const failed = await prisma.matchingRun.update({
      where: { id: run.id },
      data: { status: 'failed', finishedAt: new Date(), error: errorText(err) },
      select: runSelect,
    });
    await logRun(event, failed, actor, false);
    return failed;
  }
  if (timings) timings.totalMs = performance.now() - t0;
  const finished = await prisma.matchingRun.findUniqueOrThrow({ where: { id: run.id }, select: runSelect });
  notifyAffectedUsers(event, run.id, outcome.result, outcome.dancerOf);
  await logRun(event, finished, actor, true);
  return finished;
}

function errorText(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.length > 2000 ? `${text.slice(0, 2000)}…` : text;
}

function logRun(event: Event, run: MatchingRunView, actor: RunActor, success: boolean) {
  return logActivity({
    category: 'admin',
    action: run.status === 'failed' ? 'matching_run_failed' : 'matching_run',
    success,
    userId: actor.userId,
    username: actor.username ?? null,
    req: actor.req,
    resource: `event:${event.slug}`,
    metadata: {
      runId: run.id,
      trigger: run.trigger,
      heatsTotal: run.heatsTotal,
      heatsAssigned: run.heatsAssigned,
      heatsUnassigned: run.heatsUnassigned,
      ...(run.error ? { error: run.error } : {}),
    },
  });
}

/**
 * `recording_suggestions_created` to every user the run concerns: dancers of the heats it
 * handled (toBeRecorded = their heats that got a recorder) and the recorders it proposed
 * (toRecord = heats they are asked to record). Sent after the commit.
 */
function notifyAffectedUsers(event: Event, runId: string, result: EngineResult, dancerOf: Map<number, number>): void {
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
    emitToUser(userId, 'recording_suggestions_created', { eventSlug: event.slug, runId, ...c });
  }
}

// ---------------------------------------------------------------------------------------
// Reading suggestions and runs

const suggestionSelect = {
  id: true,
  heat: { select: heatSelect },
  dancer: { select: userSummarySelect },
  recorder: { select: userSummarySelect },
  status: true,
  originRunId: true,
  createdAt: true,
} as const;

export type SuggestionView = Prisma.RecordingSuggestionGetPayload<{ select: typeof suggestionSelect }>;

/** Heats in the order of heats/me: competition type, division, heat number; then id. */
const suggestionOrder: Prisma.RecordingSuggestionOrderByWithRelationInput[] = [
  { heat: { competitionTypeId: 'asc' } },
  { heat: { divisionId: 'asc' } },
  { heat: { heatNumber: 'asc' } },
  { id: 'asc' },
];

/** The caller's view: who records my heats, which heats I record (every status). */
export async function listMySuggestions(event: Event, userId: number) {
  await assertParticipant(event.id, userId);
  const [toBeRecorded, toRecord] = await Promise.all([
    prisma.recordingSuggestion.findMany({ where: { eventId: event.id, dancerId: userId }, select: suggestionSelect, orderBy: suggestionOrder }),
    prisma.recordingSuggestion.findMany({ where: { eventId: event.id, recorderId: userId }, select: suggestionSelect, orderBy: suggestionOrder }),
  ]);
  return { toBeRecorded, toRecord, registrationDeadline: event.registrationDeadline, matchingRunAt: event.matchingRunAt };
}

export async function listRuns(event: Event): Promise<MatchingRunView[]> {
  return prisma.matchingRun.findMany({ where: { eventId: event.id }, select: runSelect, orderBy: [{ startedAt: 'desc' }, { id: 'desc' }] });
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The suggestions a run created that still exist (a later run replaces its pending ones). */
export async function listRunSuggestions(event: Event, runId: string): Promise<SuggestionView[]> {
  const run = UUID.test(runId) ? await prisma.matchingRun.findFirst({ where: { id: runId, eventId: event.id }, select: { id: true } }) : null;
  if (!run) throw notFound(MatchingMessages.runNotFound, 'MATCHING_RUN_NOT_FOUND');
  return prisma.recordingSuggestion.findMany({ where: { originRunId: run.id }, select: suggestionSelect, orderBy: suggestionOrder });
}

// ---------------------------------------------------------------------------------------
// Accepting or rejecting

export type Decision = 'accepted' | 'rejected';

/**
 * The recorder answers a suggestion (order of checks: participant 403, suggestion of this
 * event 404, recorder 403). Transitions: pending → accepted | rejected; repeating
 * the current answer is a no-op (200); any other change → 409. Accepting creates or reuses
 * an accepted match between dancer and recorder with its private room, in the same
 * transaction. The transaction waits for a matching run of the event in progress (shared
 * advisory lock), so a run never replaces a suggestion that is being accepted.
 */
export async function decideSuggestion(event: Event, suggestionId: number, userId: number, status: Decision, req?: Request) {
  await assertParticipant(event.id, userId);
  for (let attempt = 0; ; attempt++) {
    try {
      return await decideOnce(event, suggestionId, userId, status, req);
    } catch (err) {
      // Two suggestions of the same pair accepted at once: the second sees the first's match on retry.
      if (attempt < 2 && isUniqueViolation(err)) continue;
      throw err;
    }
  }
}

async function decideOnce(event: Event, suggestionId: number, userId: number, status: Decision, req?: Request) {
  const outcome = await prisma.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT pg_advisory_xact_lock_shared(${MATCHING_LOCK_CLASS}::int, ${event.id}::int)::text AS locked`;
    const suggestion = await tx.recordingSuggestion.findFirst({ where: { id: suggestionId, eventId: event.id } });
    if (!suggestion) throw notFound(MatchingMessages.suggestionNotFound, 'SUGGESTION_NOT_FOUND');
    if (suggestion.recorderId !== userId) throw forbidden(MatchingMessages.onlyRecorder, 'NOT_RECORDER');
    if (suggestion.status === status) return { changed: false, match: null };
    if (suggestion.status !== 'pending') throw conflict(MatchingMessages.notPending, 'SUGGESTION_NOT_PENDING');
    const updated = await tx.recordingSuggestion.updateMany({
      where: { id: suggestion.id, status: 'pending' },
      data: { status, respondedAt: new Date() },
    });
    if (updated.count === 0) throw conflict(MatchingMessages.notPending, 'SUGGESTION_NOT_PENDING');
    if (status === 'rejected') return { changed: true, match: null };
    const linked = await createOrReuseAcceptedMatch(tx, {
      eventId: event.id,
      userAId: suggestion.dancerId,
      userBId: userId,
      suggestionId: suggestion.id,
    });
    return { changed: true, match: linked };
  }, { timeout: 30_000, maxWait: 10_000 });

  const view = await prisma.recordingSuggestion.findUniqueOrThrow({ where: { id: suggestionId }, select: suggestionSelect });
  const match = outcome.match
    ? { id: outcome.match.id, slug: outcome.match.slug, status: outcome.match.status, roomId: outcome.match.chatRoom?.id ?? null }
    : status === 'accepted'
      ? await currentMatchOf(event.id, view.dancer.id, userId)
      : null;
  if (outcome.changed) {
    await logActivity({
      category: 'match',
      action: status === 'accepted' ? 'recording_suggestion_accept' : 'recording_suggestion_reject',
      req,
      resource: `event:${event.slug}`,
      metadata: { suggestionId, heatId: view.heat.id, dancerId: view.dancer.id, ...(match ? { matchSlug: match.slug } : {}) },
    });
    if (outcome.match?.becameAccepted && view.recorder) {
      emitToUser(view.dancer.id, 'match_accepted', {
        matchSlug: outcome.match.slug,
        event: { slug: event.slug, name: event.name },
        from: view.recorder,
      });
    }
  }
  return { ...view, match };
}

async function currentMatchOf(eventId: number, a: number, b: number) {
  const m = await prisma.match.findFirst({
    where: { eventId, status: 'accepted', OR: [{ user1Id: a, user2Id: b }, { user1Id: b, user2Id: a }] },
    select: { id: true, slug: true, status: true, chatRoom: { select: { id: true } } },
  });
  return m ? { id: m.id, slug: m.slug, status: m.status, roomId: m.chatRoom?.id ?? null } : null;
}

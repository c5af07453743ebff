import { isDeepStrictEqual } from 'node:util';
import type { Prisma } from '../../generated/prisma/client.js';
import type { EngineResult, EngineUnfilled } from './matching.engine.js';
import type { LoadedEvent, PendingSuggestion } from './matching.loader.js';
import { whyOf, type Why } from './matching.why.js';

type Db = Prisma.TransactionClient;

export interface RunTotals {
  heatsTotal: number;
  heatsAssigned: number;
  heatsUnassigned: number;
}

/**
 * What became of the pending suggestions a run started from: previous = how many there
 * were; kept = still proposed (same row, same id and origin run); dropped = still valid but
 * given up to reach a better plan; invalid = no longer possible (heat or recorder changed,
 * cap reached, ...); added = new pairs of this run.
 */
export type RunReuse = {
  previous: number;
  kept: number;
  added: number;
  dropped: number;
  invalid: number;
};

export function reuseOf(pending: PendingSuggestion[], result: EngineResult): RunReuse {
  const { kept, added, dropped, invalid } = result.reuse;
  return { previous: pending.length, kept, added, dropped: dropped.length, invalid: invalid.length };
}

/**
 * Writes the outcome of a run, inside the caller's transaction. Stable re-runs: a pending
 * suggestion whose pair the engine kept stays (its id, originRunId and createdAt survive;
 * its `why` is refreshed), and so does a pin the engine kept; the other pending suggestions,
 * the pins that no longer hold and every `not_found` one are deleted; accepted suggestions
 * between a blocked pair become `cancelled`; the new pairs and the heats left open (with
 * their reason) are inserted with originRunId = the run (a new pair that was `cancelled`
 * before becomes that suggestion again, pending, same id). Accepted, rejected, removed and
 * cancelled suggestions otherwise stay: they are the history the engine was fed with.
 * Then the run (totals, unfilled reasons, reuse) is updated (the caller stamps Event.matchingRunAt
 * through the events feature).
 */
export async function writeRunResult(
  tx: Db,
  args: { eventId: number; runId: string; loaded: LoadedEvent; result: EngineResult; finishedAt: Date },
): Promise<RunTotals> {
  const { eventId, runId, result, finishedAt, loaded } = args;
  const { pending, pins } = loaded;
  const chosen = new Map(result.assignments.map((a) => [a.heatId, a.recorderId]));
  const keptPins = new Set(result.pins.kept.map((p) => `${p.heatId}:${p.recorderId}`));
  const kept = pending.filter((p) => chosen.get(p.heatId) === p.recorderId);
  const keptHeats = new Set(kept.map((p) => p.heatId));
  const stale = [
    ...pending.filter((p) => !keptHeats.has(p.heatId)).map((p) => p.id),
    ...pins.filter((p) => !keptPins.has(`${p.heatId}:${p.recorderId}`)).map((p) => p.id),
  ];
  await tx.recordingSuggestion.deleteMany({ where: { eventId, status: 'not_found' } });
  if (stale.length)
    await tx.recordingSuggestion.deleteMany({ where: { eventId, status: 'pending', id: { in: stale } } });
  if (loaded.blockedAccepted.length)
    await tx.recordingSuggestion.updateMany({
      where: { id: { in: loaded.blockedAccepted }, status: 'accepted' },
      data: { status: 'cancelled' },
    });
  const why = whyBuilder(loaded);
  // A kept pair's `why` changes only when a location, opt-out or balance did: the others are
  // not written again (on a re-run after a few heat changes, thousands of rows unchanged).
  await refreshWhy(
    tx,
    [
      ...kept.map((p) => ({ id: p.id, stored: p.why, why: why(p.heatId, p.recorderId, false) })),
      ...pins
        .filter((p) => keptPins.has(`${p.heatId}:${p.recorderId}`))
        .map((p) => ({ id: p.id, stored: p.why, why: why(p.heatId, p.recorderId, true) })),
    ].filter((u) => !isDeepStrictEqual(u.stored, u.why)),
  );
  const rows = newRows(args, keptHeats, why);
  if (rows.length) await insertSuggestions(tx, rows);
  const totals: RunTotals = {
    heatsTotal: result.assignments.length + result.unassigned.length,
    heatsAssigned: result.assignments.length,
    heatsUnassigned: result.unassigned.length,
  };
  await tx.matchingRun.update({
    where: { id: runId },
    data: {
      status: 'success',
      finishedAt,
      ...totals,
      unfilled: result.unfilled.map(({ heatId, reason }): EngineUnfilled => ({
        heatId,
        reason,
      })) as unknown as Prisma.InputJsonValue,
      reuse: reuseOf(pending, result) as unknown as Prisma.InputJsonValue,
    },
  });
  return totals;
}

/** `why` of a (heat, recorder) pair from the run's input (locations, opt-out, balances). */
function whyBuilder(loaded: LoadedEvent): (heatId: number, recorderId: number, pinned: boolean) => Why {
  const byUser = new Map(loaded.input.participants.map((p) => [p.userId, p]));
  const dancerOf = new Map(loaded.input.heats.map((h) => [h.id, h.userId]));
  const none = { city: null, country: null, optOut: false, balance: 0 };
  return (heatId, recorderId, pinned) => {
    const dancer = byUser.get(dancerOf.get(heatId)!) ?? none;
    const r = byUser.get(recorderId) ?? none;
    return whyOf(dancer, { city: r.city, country: r.country, optOut: r.optOut, balance: r.balance ?? 0 }, pinned);
  };
}

async function refreshWhy(tx: Db, updates: { id: number; why: Why }[]): Promise<void> {
  if (!updates.length) return;
  await tx.$executeRaw`
    UPDATE "RecordingSuggestion" s SET why = u.why
    FROM unnest(${updates.map((u) => u.id)}::int[], ${updates.map((u) => JSON.stringify(u.why))}::jsonb[]) AS u(id, why)
    WHERE s.id = u.id`;
}

interface NewRow {
  eventId: number;
  heatId: number;
  dancerId: number;
  recorderId: number | null;
  status: 'pending' | 'not_found';
  originRunId: string;
  unfilledReason: string | null;
  why: Why | null;
}

/** The rows to insert: the pairs that are not kept, and one `not_found` row per open heat. */
function newRows(
  args: { eventId: number; runId: string; loaded: LoadedEvent; result: EngineResult },
  kept: Set<number>,
  why: (heatId: number, recorderId: number, pinned: boolean) => Why,
): NewRow[] {
  const { eventId, runId, result } = args;
  const dancerOf = new Map(args.loaded.input.heats.map((h) => [h.id, h.userId]));
  return [
    ...result.assignments
      .filter((a) => !kept.has(a.heatId))
      .map((a) => ({
        eventId,
        heatId: a.heatId,
        dancerId: dancerOf.get(a.heatId)!,
        recorderId: a.recorderId,
        status: 'pending' as const,
        originRunId: runId,
        unfilledReason: null,
        why: why(a.heatId, a.recorderId, false),
      })),
    ...result.unfilled.map((u) => ({
      eventId,
      heatId: u.heatId,
      dancerId: dancerOf.get(u.heatId)!,
      recorderId: null,
      status: 'not_found' as const,
      originRunId: runId,
      unfilledReason: u.reason,
      why: null,
    })),
  ];
}

/**
 * Bulk insert of a run's suggestions. On PostgreSQL one INSERT ... SELECT FROM unnest() of
 * eight arrays: a few thousand rows take milliseconds, where createMany spends about a
 * second building its statement (scripts/bench-matching.ts). A pair that exists as a
 * `cancelled` suggestion (a no-show's duty, a pair of a block since lifted) becomes that
 * suggestion again: pending, this run as its origin, not pinned.
 */
async function insertSuggestions(tx: Db, rows: NewRow[]): Promise<void> {
  await tx.$executeRaw`
    INSERT INTO "RecordingSuggestion" ("eventId", "heatId", "dancerId", "recorderId", "status", "originRunId", "unfilledReason", "why")
    SELECT * FROM unnest(
      ${rows.map((r) => r.eventId)}::int[],
      ${rows.map((r) => r.heatId)}::int[],
      ${rows.map((r) => r.dancerId)}::int[],
      ${rows.map((r) => r.recorderId)}::int[],
      ${rows.map((r) => r.status)}::varchar[],
      ${rows.map((r) => r.originRunId)}::uuid[],
      ${rows.map((r) => r.unfilledReason)}::varchar[],
      ${rows.map((r) => (r.why ? JSON.stringify(r.why) : null))}::jsonb[]
    )
    ON CONFLICT ("heatId", "recorderId") DO UPDATE
      SET status = 'pending', "originRunId" = EXCLUDED."originRunId", why = EXCLUDED.why, pinned = false,
          "respondedAt" = NULL, "updatedAt" = now()
      WHERE "RecordingSuggestion".status = 'cancelled'`;
}

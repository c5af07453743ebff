import type { Prisma } from '../../generated/prisma/client.js';
import type { EngineHeat, EngineResult, EngineUnfilled } from './matching.engine.js';
import type { PendingSuggestion } from './matching.loader.js';

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
 * suggestion whose pair the engine kept stays untouched (its id, originRunId and createdAt
 * survive); the other pending suggestions and every `not_found` one are deleted; the new
 * pairs and the heats left open (with their reason) are inserted with originRunId = the run.
 * Accepted and rejected suggestions stay: they are the history the engine was fed with.
 * Then the run (totals, unfilled reasons, reuse) and Event.matchingRunAt are updated.
 */
export async function writeRunResult(
  tx: Db,
  args: { eventId: number; runId: string; heats: EngineHeat[]; pending: PendingSuggestion[]; result: EngineResult; finishedAt: Date },
): Promise<RunTotals> {
  const { eventId, runId, result, finishedAt, pending } = args;
  const chosen = new Map(result.assignments.map((a) => [a.heatId, a.recorderId]));
  const kept = new Set(pending.filter((p) => chosen.get(p.heatId) === p.recorderId).map((p) => p.heatId));
  const stale = pending.filter((p) => !kept.has(p.heatId)).map((p) => p.id);
  await tx.recordingSuggestion.deleteMany({ where: { eventId, status: 'not_found' } });
  if (stale.length) await tx.recordingSuggestion.deleteMany({ where: { eventId, status: 'pending', id: { in: stale } } });
  const rows = newRows(args, kept);
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
      unfilled: result.unfilled.map(({ heatId, reason }): EngineUnfilled => ({ heatId, reason })) as unknown as Prisma.InputJsonValue,
      reuse: reuseOf(pending, result) as unknown as Prisma.InputJsonValue,
    },
  });
  await tx.event.update({ where: { id: eventId }, data: { matchingRunAt: finishedAt } });
  return totals;
}

/** The rows to insert: the pairs that are not kept, and one `not_found` row per open heat. */
function newRows(
  args: { eventId: number; runId: string; heats: EngineHeat[]; result: EngineResult },
  kept: Set<number>,
): Prisma.RecordingSuggestionCreateManyInput[] {
  const { eventId, runId, result } = args;
  const dancerOf = new Map(args.heats.map((h) => [h.id, h.userId]));
  return [
    ...result.assignments
      .filter((a) => !kept.has(a.heatId))
      .map((a) => ({ eventId, heatId: a.heatId, dancerId: dancerOf.get(a.heatId)!, recorderId: a.recorderId, status: 'pending', originRunId: runId })),
    ...result.unfilled.map((u) => ({
      eventId,
      heatId: u.heatId,
      dancerId: dancerOf.get(u.heatId)!,
      recorderId: null,
      status: 'not_found',
      originRunId: runId,
      unfilledReason: u.reason,
    })),
  ];
}

/**
 * Bulk insert of a run's suggestions. On PostgreSQL one INSERT ... SELECT FROM unnest() of
 * seven arrays: a few thousand rows take milliseconds, where createMany spends about a
 * second building its statement (scripts/bench-matching.ts).
 */
async function insertSuggestions(tx: Db, rows: Prisma.RecordingSuggestionCreateManyInput[]): Promise<void> {
  await tx.$executeRaw`
    INSERT INTO "RecordingSuggestion" ("eventId", "heatId", "dancerId", "recorderId", "status", "originRunId", "unfilledReason")
    SELECT * FROM unnest(
      ${rows.map((r) => r.eventId)}::int[],
      ${rows.map((r) => r.heatId)}::int[],
      ${rows.map((r) => r.dancerId)}::int[],
      ${rows.map((r) => r.recorderId ?? null)}::int[],
      ${rows.map((r) => r.status!)}::varchar[],
      ${rows.map((r) => r.originRunId)}::uuid[],
      ${rows.map((r) => r.unfilledReason ?? null)}::varchar[]
    )`;
}

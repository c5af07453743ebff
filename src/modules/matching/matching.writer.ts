import type { Prisma } from '../../generated/prisma/client.js';
import type { EngineHeat, EngineResult } from './matching.engine.js';

type Db = Prisma.TransactionClient;

export interface RunTotals {
  heatsTotal: number;
  heatsAssigned: number;
  heatsUnassigned: number;
}

/**
 * Writes the outcome of a run, inside the caller's transaction: the event's `pending` and
 * `not_found` suggestions are replaced (accepted and rejected ones stay: they are the
 * history the engine was fed with), one suggestion per heat that needed a recorder is
 * inserted with originRunId = the run, and the run and Event.matchingRunAt are updated.
 */
export async function writeRunResult(
  tx: Db,
  args: { eventId: number; runId: string; heats: EngineHeat[]; result: EngineResult; finishedAt: Date },
): Promise<RunTotals> {
  const { eventId, runId, result, finishedAt } = args;
  const dancerOf = new Map(args.heats.map((h) => [h.id, h.userId]));
  await tx.recordingSuggestion.deleteMany({ where: { eventId, status: { in: ['pending', 'not_found'] } } });
  const rows: Prisma.RecordingSuggestionCreateManyInput[] = [
    ...result.assignments.map((a) => ({
      eventId,
      heatId: a.heatId,
      dancerId: dancerOf.get(a.heatId)!,
      recorderId: a.recorderId,
      status: 'pending',
      originRunId: runId,
    })),
    ...result.unassigned.map((heatId) => ({
      eventId,
      heatId,
      dancerId: dancerOf.get(heatId)!,
      recorderId: null,
      status: 'not_found',
      originRunId: runId,
    })),
  ];
  if (rows.length) await insertSuggestions(tx, rows);
  const totals: RunTotals = {
    heatsTotal: rows.length,
    heatsAssigned: result.assignments.length,
    heatsUnassigned: result.unassigned.length,
  };
  await tx.matchingRun.update({ where: { id: runId }, data: { status: 'success', finishedAt, ...totals } });
  await tx.event.update({ where: { id: eventId }, data: { matchingRunAt: finishedAt } });
  return totals;
}

/**
 * Bulk insert of a run's suggestions: one INSERT ... SELECT FROM unnest() of six arrays.
 * A few thousand rows take milliseconds, where createMany spends about a second building
 * its statement (benchmark).
 */
async function insertSuggestions(tx: Db, rows: Prisma.RecordingSuggestionCreateManyInput[]): Promise<void> {
  await tx.$executeRaw`
    INSERT INTO "RecordingSuggestion" ("eventId", "heatId", "dancerId", "recorderId", "status", "originRunId")
    SELECT * FROM unnest(
      ${rows.map((r) => r.eventId)}::int[],
      ${rows.map((r) => r.heatId)}::int[],
      ${rows.map((r) => r.dancerId)}::int[],
      ${rows.map((r) => r.recorderId ?? null)}::int[],
      ${rows.map((r) => r.status!)}::varchar[],
      ${rows.map((r) => r.originRunId)}::uuid[]
    )`;
}

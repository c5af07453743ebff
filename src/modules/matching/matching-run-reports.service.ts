import type { PrismaClient } from '../../generated/prisma/client.js';
import type { Actor } from '../../lib/actor.js';
import { AppError } from '../../lib/errors.js';
import type { CsvFile } from '../../lib/http.js';
import type { ActivityLogService } from '../activity-log/activity-log.service.js';
import type { EventAccess } from '../events/event-access.js';
import type { EngineUnfilled } from './matching.engine.js';
import type { EventInput, RunInput } from './matching.schemas.js';
import { EXPORT_COLUMNS, EXPORT_STATUSES, exportSelect, toExportRecord, type ExportRecord } from './matching.export.js';
import {
  runSelect,
  storedUnfilled,
  suggestionOrder,
  suggestionSelect,
  toRunView,
  toUnfilledHeats,
  unfilledHeatSelect,
  type MatchingRunView,
  type SuggestionView,
} from './matching.views.js';

/** Rows per page of the CSV export. */
const EXPORT_PAGE_SIZE = 500;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A run of an event: `:slug` and `:runId` of the admin routes. */
type RunRef = RunInput;

/** The heats a run left open, each with its reason, heat and dancer (null once the heat was deleted). */
export async function unfilledHeatsOf(db: PrismaClient, unfilled: EngineUnfilled[]) {
  if (!unfilled.length) return [];
  const rows = await db.heat.findMany({
    where: { id: { in: unfilled.map((u) => u.heatId) } },
    select: unfilledHeatSelect,
  });
  return toUnfilledHeats(unfilled, rows);
}

/** What the run reports use (built by src/container.ts). */
export interface MatchingRunReportsDeps {
  db: PrismaClient;
  audit: ActivityLogService;
  eventAccess: EventAccess;
}

/** The organisers' reads of past runs: the list, one run, its suggestions, the CSV of the current plan. */
export class MatchingRunReportsService {
  constructor(private readonly deps: MatchingRunReportsDeps) {}

  /** The event's runs, newest first (event 404). */
  async listRuns(_actor: Actor, input: EventInput): Promise<MatchingRunView[]> {
    const event = await this.deps.eventAccess.getBySlug(input.slug);
    const runs = await this.deps.db.matchingRun.findMany({
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
  async getRun(_actor: Actor, input: RunRef) {
    const event = await this.deps.eventAccess.getBySlug(input.slug);
    const run = await this.findRun(event.id, input.runId);
    return { ...toRunView(run), unfilledHeats: await unfilledHeatsOf(this.deps.db, storedUnfilled(run)) };
  }

  /**
   * The suggestions a run created that still exist (a later run keeps the pending ones it can, replaces the rest).
   * Check order: event 404, run of this event 404 (unknown or non-UUID id).
   */
  async listRunSuggestions(_actor: Actor, input: RunRef): Promise<SuggestionView[]> {
    const event = await this.deps.eventAccess.getBySlug(input.slug);
    const run = await this.findRun(event.id, input.runId);
    return this.deps.db.recordingSuggestion.findMany({
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
  async exportPlan(actor: Actor, input: RunRef): Promise<CsvFile<ExportRecord>> {
    const event = await this.deps.eventAccess.getBySlug(input.slug);
    const run = await this.findRun(event.id, input.runId);
    const latest = await this.deps.db.matchingRun.findFirst({
      where: { eventId: event.id, status: 'success' },
      select: { id: true },
      orderBy: [{ startedAt: 'desc' }, { id: 'desc' }],
    });
    if (latest?.id !== run.id) throw new AppError('MATCHING_RUN_NOT_CURRENT');
    await this.deps.audit.record(actor, {
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
      await this.deps.db.recordingSuggestion.findMany({ where, select: { id: true }, orderBy: suggestionOrder })
    ).map((r) => r.id);
    const select = exportSelect(eventId);
    for (let i = 0; i < ids.length; i += EXPORT_PAGE_SIZE) {
      const page = ids.slice(i, i + EXPORT_PAGE_SIZE);
      const rows = await this.deps.db.recordingSuggestion.findMany({ where: { id: { in: page } }, select });
      const byId = new Map(rows.map((r) => [r.id, r]));
      for (const id of page) {
        const row = byId.get(id);
        if (row) yield toExportRecord(row); // deleted meanwhile by a later run: left out
      }
    }
  }

  private async findRun(eventId: number, runId: string) {
    const run = UUID.test(runId)
      ? await this.deps.db.matchingRun.findFirst({ where: { id: runId, eventId }, select: runSelect })
      : null;
    if (!run) throw new AppError('MATCHING_RUN_NOT_FOUND');
    return run;
  }
}

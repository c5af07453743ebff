import type { Prisma } from '../../generated/prisma/client.js';
import { heatSummarySelect } from '../../lib/heat-summary.js';
import { userSummarySelect } from '../../lib/user-summary.js';
import { UNFILLED_REASONS, type EngineUnfilled, type UnfilledReason } from './matching.engine.js';
import type { RunReuse } from './matching.writer.js';

/** The response shapes of matching: runs, suggestions, unfilled heats. */

export const runSelect = {
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
  unfilled: true,
  reuse: true,
} as const;

type RunRow = Prisma.MatchingRunGetPayload<{ select: typeof runSelect }>;

/** The run without its stored JSON: `reuse` (null before stable re-runs or when failed) and the open heats counted per reason. */
export type MatchingRunView = Omit<RunRow, 'unfilled' | 'reuse'> & {
  reuse: RunReuse | null;
  unfilledByReason: Record<UnfilledReason, number>;
};

export function storedUnfilled(run: Pick<RunRow, 'unfilled'>): EngineUnfilled[] {
  return Array.isArray(run.unfilled) ? (run.unfilled as unknown as EngineUnfilled[]) : [];
}

export function countByReason(unfilled: EngineUnfilled[]): Record<UnfilledReason, number> {
  const counts = Object.fromEntries(UNFILLED_REASONS.map((r) => [r, 0])) as Record<UnfilledReason, number>;
  for (const u of unfilled) counts[u.reason]++;
  return counts;
}

export function toRunView(row: RunRow): MatchingRunView {
  const { unfilled: _unfilled, reuse, ...rest } = row;
  return {
    ...rest,
    reuse: (reuse as unknown as RunReuse | null) ?? null,
    unfilledByReason: countByReason(storedUnfilled(row)),
  };
}

export const suggestionSelect = {
  id: true,
  heat: { select: heatSummarySelect },
  dancer: { select: userSummarySelect },
  recorder: { select: userSummarySelect },
  status: true,
  unfilledReason: true,
  originRunId: true,
  createdAt: true,
  pinned: true,
  why: true,
} as const;

export type SuggestionView = Prisma.RecordingSuggestionGetPayload<{ select: typeof suggestionSelect }>;

const userSummaryJson = (u: string) =>
  `json_build_object('id', ${u}.id, 'username', ${u}.username, 'avatar', ${u}.avatar, 'firstName', ${u}."firstName", 'lastName', ${u}."lastName")`;
const referenceJson = (r: string) =>
  `json_build_object('id', ${r}.id, 'name', ${r}.name, 'abbreviation', ${r}.abbreviation)`;

/**
 * SQL of the suggestions of one event (SQL expression `event`) where one person (`person`) is
 * the dancer or the recorder (`who`), as a json array of `suggestionSelect` objects in
 * `suggestionOrder` (createdAt as text). Index: RecordingSuggestion(eventId, dancerId) /
 * (eventId, recorderId).
 */
export const suggestionsJson = (who: '"dancerId"' | '"recorderId"', event: string, person: string) =>
  `(SELECT coalesce(json_agg(json_build_object(
      'id', s.id,
      'heat', json_build_object('id', h.id, 'divisionId', h."divisionId", 'division', ${referenceJson('d')},
                                'competitionTypeId', h."competitionTypeId", 'competitionType', ${referenceJson('ct')},
                                'heatNumber', h."heatNumber", 'role', h.role),
      'dancer', ${userSummaryJson('du')},
      'recorder', CASE WHEN ru.id IS NULL THEN NULL ELSE ${userSummaryJson('ru')} END,
      'status', s.status, 'unfilledReason', s."unfilledReason", 'originRunId', s."originRunId", 'createdAt', s."createdAt",
      'pinned', s.pinned, 'why', s.why
    ) ORDER BY h."competitionTypeId", h."divisionId", h."heatNumber", s.id), '[]'::json)
    FROM "RecordingSuggestion" s
    JOIN "Heat" h ON h.id = s."heatId"
    JOIN "Division" d ON d.id = h."divisionId"
    JOIN "CompetitionType" ct ON ct.id = h."competitionTypeId"
    JOIN "User" du ON du.id = s."dancerId"
    LEFT JOIN "User" ru ON ru.id = s."recorderId"
    WHERE s."eventId" = ${event} AND s.${who} = ${person})`;

/** A suggestion as `suggestionsJson` renders it. */
export type SuggestionJson = Omit<SuggestionView, 'createdAt'> & { createdAt: string };

/** Heats in the order of heats/me: competition type, division, heat number; then id. */
export const suggestionOrder: Prisma.RecordingSuggestionOrderByWithRelationInput[] = [
  { heat: { competitionTypeId: 'asc' } },
  { heat: { divisionId: 'asc' } },
  { heat: { heatNumber: 'asc' } },
  { id: 'asc' },
];

/** An open heat with its reason; heat and dancer are null when the heat was deleted since. */
export const unfilledHeatSelect = { ...heatSummarySelect, user: { select: userSummarySelect } } as const;
type UnfilledHeatRow = Prisma.HeatGetPayload<{ select: typeof unfilledHeatSelect }>;

export function toUnfilledHeats(unfilled: EngineUnfilled[], rows: UnfilledHeatRow[]) {
  const byId = new Map(rows.map((r) => [r.id, r]));
  return unfilled.map(({ heatId, reason }) => {
    const row = byId.get(heatId);
    if (!row) return { heatId, reason, heat: null, dancer: null };
    const { user, ...heat } = row;
    return { heatId, reason, heat, dancer: user };
  });
}

/**
 * The unfilled reason of a suggestion whose recorder deleted the account (never the reason of a
 * run; suggestions.service.ts releaseDeletedRecorder).
 */
export const RECORDER_DELETED = 'RECORDER_DELETED';

import { heatView } from '../heats/heats.views.js';
import type { Prisma } from '../../generated/prisma/client.js';
import { userSummarySelect, userSummaryView } from '../../lib/user-summary.js';
import { defineView, v, type ViewOf } from '../../lib/view.js';
import {
  UNFILLED_REASONS,
  type EngineUnfilled,
  type OptOutMode,
  type UnavailableEntry,
  type UnfilledReason,
} from './matching.engine.js';
import type { RunReuse } from './matching.writer.js';

/** The response shapes of matching: runs, suggestions, unfilled heats. */

export const RUN_TRIGGERS = ['manual', 'scheduled'] as const;
export const RUN_STATUSES = ['running', 'success', 'failed'] as const;

const intSchema = { type: 'integer' };
const closedObject = (properties: Record<string, unknown>) => ({
  type: 'object',
  additionalProperties: false,
  required: Object.keys(properties),
  properties,
});

/** The stored open heats of a run (r.unfilled: a json array, or null before the run finished). */
const storedUnfilledSql = `CASE WHEN jsonb_typeof(r.unfilled::jsonb) = 'array' THEN r.unfilled::jsonb ELSE '[]'::jsonb END`;

/**
 * A matching run (component Run; RunDetail adds its open heats): the one declaration of its
 * fields. The Prisma reads select `runSelect` (its columns and the stored `unfilled` list, which
 * toRunView counts per reason); the SQL (`runView.json()`, over r = MatchingRun) counts the same.
 */
export const runView = defineView(
  'Run',
  {
    id: v.json<string>({ type: 'string', format: 'uuid' }),
    eventId: v.int(),
    trigger: v.json<string>({ enum: [...RUN_TRIGGERS] }),
    status: v.json<string>({ enum: [...RUN_STATUSES] }),
    startedAt: v.dateTime(),
    finishedAt: v.nullDateTime(),
    heatsTotal: v.int(),
    heatsAssigned: v.int(),
    heatsUnassigned: v.int(),
    error: v.nullStr(),
    reuse: v.json<RunReuse | null>({
      oneOf: [
        closedObject({
          previous: intSchema,
          kept: intSchema,
          added: intSchema,
          dropped: intSchema,
          invalid: intSchema,
        }),
        { type: 'null' },
      ],
      description:
        'what became of the pending suggestions the run started from; null for failed runs and runs made before stable re-runs',
    }),
    unfilledByReason: v
      .json<Record<UnfilledReason, number>>(
        closedObject(Object.fromEntries(UNFILLED_REASONS.map((r) => [r, intSchema]))),
      )
      .sql(
        `json_build_object(${UNFILLED_REASONS.map(
          (reason) =>
            `'${reason}', (SELECT count(*)::int FROM jsonb_array_elements(${storedUnfilledSql}) x WHERE x->>'reason' = '${reason}')`,
        ).join(', ')})`,
      ),
  },
  { alias: 'r' },
);

/** The run's columns of the view, and the stored open heats toRunView counts. */
export const runSelect = { ...runView.select, unfilled: true } as const;

type RunRow = Prisma.MatchingRunGetPayload<{ select: typeof runSelect }>;

/** The run without its stored JSON: `reuse` (null before stable re-runs or when failed) and the open heats counted per reason. */
export type MatchingRunView = ViewOf<typeof runView>;

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

/** The states of a recording suggestion. */
export const SUGGESTION_STATUSES = ['pending', 'accepted', 'rejected', 'not_found', 'removed', 'cancelled'] as const;

/**
 * A recording suggestion (component Suggestion): the one declaration of its fields. Its SQL
 * (`suggestionView.json()`) reads s (RecordingSuggestion), h (its Heat) with d (Division) and
 * ct (CompetitionType), du (the dancer) and ru (the recorder, LEFT JOINed); the Prisma reads
 * select `suggestionSelect`. The heat is the heats feature's Heat view (heats.views.ts).
 */
export const suggestionView = defineView(
  'Suggestion',
  {
    id: v.int(),
    heat: v.view(heatView, 'h'),
    dancer: v.view(userSummaryView, 'du'),
    recorder: v.nullView(userSummaryView, 'ru'),
    status: v.json<string>({ enum: [...SUGGESTION_STATUSES] }),
    unfilledReason: v.json<string | null>({
      oneOf: [{ $ref: '#/components/schemas/UnfilledReason' }, { type: 'null' }],
      description: 'why a `not_found` heat has no recorder; null otherwise',
    }),
    originRunId: v.json<string | null>({
      oneOf: [{ type: 'string', format: 'uuid' }, { type: 'null' }],
      description: 'the run that proposed the pair; null for an admin pin',
    }),
    createdAt: v.dateTime(),
    pinned: v.bool().describe('pinned by an admin (kept by runs, counted toward caps)'),
    why: v.json<unknown>({
      oneOf: [
        {
          type: 'object',
          additionalProperties: false,
          required: ['locality', 'optOut', 'recorderBalance', 'pinned'],
          properties: {
            locality: { enum: ['city', 'country', 'anywhere'] },
            optOut: { type: 'boolean' },
            recorderBalance: { type: 'integer' },
            pinned: { type: 'boolean' },
          },
        },
        { type: 'null' },
      ],
      description:
        'why this recorder: locality tier (dancer vs recorder city/country, trimmed, case-insensitive), whether the recorder opted out, ' +
        "the recorder's balance for this event (recordings received minus done at other events) and whether the pair is pinned; " +
        'null without a recorder and on rows written before fair matching',
    }),
  },
  { alias: 's' },
);

/** The Prisma select of the suggestion view: its columns and users, and the heat's summary. */
export const suggestionSelect = suggestionView.select;

export type SuggestionView = Prisma.RecordingSuggestionGetPayload<{ select: typeof suggestionSelect }>;

/** Every view of this feature, registered as OpenAPI components by src/docs/feature-schemas.ts. */
export const matchingViews = [runView, suggestionView];

/**
 * SQL of the suggestions of one event (SQL expression `event`) where one person (`person`) is
 * the dancer or the recorder (`who`), as a json array of suggestion views in
 * `suggestionOrder` (createdAt as text). Index: RecordingSuggestion(eventId, dancerId) /
 * (eventId, recorderId).
 */
export const suggestionsJson = (who: '"dancerId"' | '"recorderId"', event: string, person: string) =>
  `(SELECT coalesce(json_agg(${suggestionView.json()}
      ORDER BY h."competitionTypeId", h."divisionId", h."heatNumber", s.id), '[]'::json)
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
export const unfilledHeatSelect = { ...heatView.select, user: { select: userSummarySelect } } as const;
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

/**
 * An event's matching settings (GET/PATCH /events/:slug/matching-settings): the one declaration
 * of their fields, read from EventMatchingSettings (no row: DEFAULT_MATCHING_SETTINGS).
 */
export const matchingSettingsView = defineView(
  'MatchingSettings',
  {
    bufferBefore: v.json<number>({ type: 'integer', minimum: 0, maximum: 2 }),
    bufferAfter: v.json<number>({ type: 'integer', minimum: 0, maximum: 2 }),
    maxRecordingsPerPerson: v.json<number>({ type: 'integer', minimum: 1, maximum: 5 }),
    optOutMode: v.json<OptOutMode>({ enum: ['last', 'exclude'] satisfies OptOutMode[] }),
  },
  { alias: 'ms' },
);

/**
 * A participant's recording preferences (GET/PATCH /events/:slug/recording-preferences), read
 * from EventParticipant; `unavailable` is the stored JSON normalised by unavailableEntries.
 */
export const recordingPreferencesView = defineView(
  'RecordingPreferences',
  {
    maxRecordings: v.nullInt(),
    unavailable: v.json<UnavailableEntry[]>({
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['competitionTypeId', 'heatNumber', 'divisionId'],
        properties: {
          competitionTypeId: { type: 'integer' },
          heatNumber: { type: 'integer', minimum: 1, maximum: 9 },
          divisionId: { type: ['integer', 'null'] },
        },
      },
    }),
  },
  { alias: 'ep' },
);

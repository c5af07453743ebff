import { validationFailed, type ErrorDetail } from '../../lib/errors.js';
import { defineInput, f, type InputOf } from '../../middleware/input.js';
import { isPositiveInt32 } from '../../middleware/validators.js';
import type { OptOutMode, UnavailableEntry } from './matching.engine.js';
import { suggestionId } from './matching.schemas.js';

/**
 * The inputs of fair matching for people (settings, preferences, pins, removals, no-shows),
 * each declared once (src/middleware/input.ts). Bodies take strict JSON values (no numeric
 * strings, decimals or null where a number is due); unknown fields are ignored. What needs the
 * database (reference ids, the event's maximum) is the service's, still before the event lookup.
 */

export const OPT_OUT_MODES = ['last', 'exclude'] as const satisfies readonly OptOutMode[];
export const MAX_UNAVAILABLE_ENTRIES = 50;

const slug = f.slug();
const isIntIn = (v: unknown, min: number, max: number) =>
  typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;

/** A JSON integer in [min, max], else "<name> must be an integer from min to max". */
const strictInt = (min: number, max: number) =>
  f.custom<number>({ type: 'integer', minimum: min, maximum: max }, (chain, name) =>
    chain.custom((v: unknown) => isIntIn(v, min, max)).withMessage(`${name} must be an integer from ${min} to ${max}`),
  );

/** A positive int32 given as a JSON number, else "<name> must be a positive integer" (absent included). */
const positiveId = () =>
  f.custom<number>({ type: 'integer', minimum: 1, maximum: 2_147_483_647 }, (chain, name) =>
    chain.custom((v: unknown) => isPositiveInt32(v)).withMessage(`${name} must be a positive integer`),
  );

/** GET /events/:slug/matching-settings and GET /events/:slug/recording-preferences. */
export const matchingPeopleEventInput = defineInput('matchingPeopleEvent', { params: { slug } });
export type MatchingPeopleEventInput = InputOf<typeof matchingPeopleEventInput>;

/** PUT /events/:slug/matching-settings: any of the four (none at all is the service's 400). */
export const matchingSettingsInput = defineInput('updateMatchingSettings', {
  params: { slug },
  body: {
    bufferBefore: strictInt(0, 2).optional(),
    bufferAfter: strictInt(0, 2).optional(),
    maxRecordingsPerPerson: strictInt(1, 5).optional(),
    optOutMode: f
      .custom<OptOutMode>({ type: 'string', enum: [...OPT_OUT_MODES] }, (chain) =>
        chain
          .custom((v: unknown) => (OPT_OUT_MODES as readonly unknown[]).includes(v))
          .withMessage('optOutMode must be "last" or "exclude"'),
      )
      .optional(),
  },
});
export type MatchingSettingsRequest = InputOf<typeof matchingSettingsInput>;
/** The changes of a settings update (the fields given). */
export type MatchingSettingsInput = Omit<MatchingSettingsRequest, 'slug'>;

/**
 * The entries of `unavailable`, in the order given: each an object with a competitionTypeId
 * (a positive int32), a heatNumber 1-9 and an optional divisionId (a positive int32 or null);
 * every broken entry rule is one detail (`unavailable[i].heatNumber`). Whether the ids exist
 * is the service's (unknownReferenceDetails).
 */
function parseEntries(list: unknown[]): UnavailableEntry[] {
  const details: ErrorDetail[] = [];
  const entries = list.map((e, i) => {
    const at = `unavailable[${i}]`;
    if (!e || typeof e !== 'object' || Array.isArray(e)) {
      details.push({ field: at, message: `${at} must be an object` });
      return null;
    }
    const { competitionTypeId, heatNumber, divisionId } = e as Record<string, unknown>;
    if (!isPositiveInt32(competitionTypeId))
      details.push({ field: `${at}.competitionTypeId`, message: COMPETITION_TYPE_MESSAGE });
    if (!isIntIn(heatNumber, 1, 9))
      details.push({ field: `${at}.heatNumber`, message: 'heatNumber must be an integer from 1 to 9' });
    if (divisionId !== undefined && divisionId !== null && !isPositiveInt32(divisionId))
      details.push({ field: `${at}.divisionId`, message: DIVISION_MESSAGE });
    return {
      competitionTypeId: competitionTypeId as number,
      heatNumber: heatNumber as number,
      divisionId: (divisionId as number | null | undefined) ?? null,
    };
  });
  if (details.length) throw validationFailed(details);
  return entries as UnavailableEntry[];
}

export const COMPETITION_TYPE_MESSAGE = 'competitionTypeId must be the id of a competition type';
export const DIVISION_MESSAGE = 'divisionId must be the id of a division';

/**
 * The details of entries whose competition type or division does not exist, in the order
 * given (the same messages as a malformed id).
 */
export function unknownReferenceDetails(
  entries: readonly UnavailableEntry[],
  ids: { divisions: ReadonlySet<number>; competitionTypes: ReadonlySet<number> },
): ErrorDetail[] {
  return entries.flatMap((e, i) => [
    ...(ids.competitionTypes.has(e.competitionTypeId)
      ? []
      : [{ field: `unavailable[${i}].competitionTypeId`, message: COMPETITION_TYPE_MESSAGE }]),
    ...(e.divisionId === null || ids.divisions.has(e.divisionId)
      ? []
      : [{ field: `unavailable[${i}].divisionId`, message: DIVISION_MESSAGE }]),
  ]);
}

/** Entries merged when identical and sorted by competitionTypeId, heatNumber, divisionId (null first). */
export function mergeEntries(entries: readonly UnavailableEntry[]): UnavailableEntry[] {
  const unique = new Map(entries.map((e) => [`${e.competitionTypeId}:${e.heatNumber}:${e.divisionId}`, e]));
  return [...unique.values()].sort(
    (a, b) =>
      a.competitionTypeId - b.competitionTypeId ||
      a.heatNumber - b.heatNumber ||
      (a.divisionId ?? -1) - (b.divisionId ?? -1),
  );
}

const entrySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['competitionTypeId', 'heatNumber'],
  properties: {
    competitionTypeId: { type: 'integer' },
    heatNumber: { type: 'integer', minimum: 1, maximum: 9 },
    divisionId: { type: ['integer', 'null'] },
  },
};

/** PUT /events/:slug/recording-preferences: maxRecordings and/or unavailable (replaces the list). */
export const preferencesInput = defineInput('updateRecordingPreferences', {
  params: { slug },
  body: {
    maxRecordings: f
      .custom<number | null>({ type: ['integer', 'null'], minimum: 0 }, (chain) =>
        chain
          .custom((v: unknown) => v === null || isIntIn(v, 0, Number.MAX_SAFE_INTEGER))
          .withMessage('maxRecordings must be null or an integer of at least 0'),
      )
      .optional(),
    unavailable: f
      .custom<UnavailableEntry[]>({ type: 'array', maxItems: MAX_UNAVAILABLE_ENTRIES, items: entrySchema }, (chain) =>
        chain
          .custom((v: unknown) => Array.isArray(v))
          .withMessage('unavailable must be an array')
          .bail()
          .custom((v: unknown[]) => v.length <= MAX_UNAVAILABLE_ENTRIES)
          .withMessage(`unavailable holds at most ${MAX_UNAVAILABLE_ENTRIES} entries`)
          .bail()
          // an entry's problems answer as their own details (a sanitizer's error leaves the run as thrown)
          .customSanitizer((v: unknown[]) => parseEntries(v)),
      )
      .optional(),
  },
});
export type PreferencesRequest = InputOf<typeof preferencesInput>;
/** The changes of a preferences update (the fields given; entries in the order given). */
export type PreferencesInput = Omit<PreferencesRequest, 'slug'>;

/** POST /admin/events/:slug/match-suggestions: `{ heatId, recorderId }`. */
export const pinInput = defineInput('pinMatchSuggestion', {
  params: { slug },
  body: { heatId: positiveId(), recorderId: positiveId() },
});
export type PinInput = InputOf<typeof pinInput>;

/** DELETE /admin/events/:slug/match-suggestions/:id (`id` null: a malformed id, answered 404 after the event's). */
export const removeSuggestionInput = defineInput('removeMatchSuggestion', { params: { slug, id: suggestionId } });
export type RemoveSuggestionInput = InputOf<typeof removeSuggestionInput>;

/** POST/DELETE /admin/events/:slug/participants/:userId/absent: a malformed userId is 400. */
export const absentInput = defineInput('participantAbsent', {
  params: {
    slug,
    userId: f.custom<number>(
      { type: 'string', description: "the participant's user id (a positive integer, else 400)" },
      (chain) =>
        chain
          .custom((v: unknown) => typeof v === 'string' && /^[1-9]\d{0,9}$/.test(v) && isPositiveInt32(Number(v)))
          .withMessage('userId must be a positive integer')
          .bail()
          .customSanitizer((v: string) => Number(v)),
    ),
  },
});
export type AbsentInput = InputOf<typeof absentInput>;

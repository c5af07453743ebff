import { validationFailed, type ErrorDetail } from '../../lib/errors.js';
import type { OptOutMode, UnavailableEntry } from './matching.engine.js';

/** PUT /events/:slug/matching-settings: any of the four; unknown fields ignored. */
export interface MatchingSettingsInput {
  bufferBefore?: number;
  bufferAfter?: number;
  maxRecordingsPerPerson?: number;
  optOutMode?: OptOutMode;
}

/** PUT /events/:slug/recording-preferences: maxRecordings and/or unavailable (replaces the list). */
export interface PreferencesInput {
  maxRecordings?: number | null;
  unavailable?: UnavailableEntry[];
}

export const MAX_UNAVAILABLE_ENTRIES = 50;

const isIntIn = (v: unknown, min: number, max: number) =>
  typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;
const body = (b: unknown): Record<string, unknown> =>
  b && typeof b === 'object' && !Array.isArray(b) ? (b as Record<string, unknown>) : {};

/** Strict JSON values (no numeric strings, decimals or null); all or nothing. */
export function parseMatchingSettings(raw: unknown): MatchingSettingsInput {
  const b = body(raw);
  const details: ErrorDetail[] = [];
  const out: MatchingSettingsInput = {};
  for (const field of ['bufferBefore', 'bufferAfter'] as const) {
    if (!(field in b)) continue;
    if (isIntIn(b[field], 0, 2)) out[field] = b[field] as number;
    else details.push({ field, message: `${field} must be an integer from 0 to 2` });
  }
  if ('maxRecordingsPerPerson' in b) {
    if (isIntIn(b.maxRecordingsPerPerson, 1, 5)) out.maxRecordingsPerPerson = b.maxRecordingsPerPerson as number;
    else
      details.push({
        field: 'maxRecordingsPerPerson',
        message: 'maxRecordingsPerPerson must be an integer from 1 to 5',
      });
  }
  if ('optOutMode' in b) {
    if (b.optOutMode === 'last' || b.optOutMode === 'exclude') out.optOutMode = b.optOutMode;
    else details.push({ field: 'optOutMode', message: 'optOutMode must be "last" or "exclude"' });
  }
  if (details.length === 0 && Object.keys(out).length === 0)
    details.push({
      field: 'body',
      message: 'Give at least one of bufferBefore, bufferAfter, maxRecordingsPerPerson, optOutMode',
    });
  if (details.length) throw validationFailed(details);
  return out;
}

/**
 * The shape of a preferences body, reference ids included (unknown competition type or
 * division → 400); the event's maximum is checked later by the service. Entries are merged
 * when identical and sorted by competitionTypeId, heatNumber, divisionId (null first).
 */
export function parsePreferences(
  raw: unknown,
  ids: { divisions: ReadonlySet<number>; competitionTypes: ReadonlySet<number> },
): PreferencesInput {
  const b = body(raw);
  const details: ErrorDetail[] = [];
  const out: PreferencesInput = {};
  if ('maxRecordings' in b) {
    if (b.maxRecordings === null || isIntIn(b.maxRecordings, 0, Number.MAX_SAFE_INTEGER))
      out.maxRecordings = b.maxRecordings as number | null;
    else details.push({ field: 'maxRecordings', message: 'maxRecordings must be null or an integer of at least 0' });
  }
  if ('unavailable' in b) {
    const list = b.unavailable;
    if (!Array.isArray(list)) details.push({ field: 'unavailable', message: 'unavailable must be an array' });
    else if (list.length > MAX_UNAVAILABLE_ENTRIES)
      details.push({ field: 'unavailable', message: `unavailable holds at most ${MAX_UNAVAILABLE_ENTRIES} entries` });
    else {
      const entries: UnavailableEntry[] = [];
      list.forEach((e, i) => {
        const entry = parseEntry(e, `unavailable[${i}]`, ids, details);
        if (entry) entries.push(entry);
      });
      out.unavailable = mergeEntries(entries);
    }
  }
  if (details.length === 0 && Object.keys(out).length === 0)
    details.push({ field: 'body', message: 'Give maxRecordings and/or unavailable' });
  if (details.length) throw validationFailed(details);
  return out;
}

function parseEntry(
  e: unknown,
  at: string,
  ids: { divisions: ReadonlySet<number>; competitionTypes: ReadonlySet<number> },
  details: ErrorDetail[],
): UnavailableEntry | null {
  if (!e || typeof e !== 'object' || Array.isArray(e)) {
    details.push({ field: at, message: `${at} must be an object` });
    return null;
  }
  const { competitionTypeId, heatNumber, divisionId } = e as Record<string, unknown>;
  const before = details.length;
  if (!isIntIn(competitionTypeId, 1, 2_147_483_647) || !ids.competitionTypes.has(competitionTypeId as number))
    details.push({
      field: `${at}.competitionTypeId`,
      message: 'competitionTypeId must be the id of a competition type',
    });
  if (!isIntIn(heatNumber, 1, 9))
    details.push({ field: `${at}.heatNumber`, message: 'heatNumber must be an integer from 1 to 9' });
  if (
    divisionId !== undefined &&
    divisionId !== null &&
    (!isIntIn(divisionId, 1, 2_147_483_647) || !ids.divisions.has(divisionId as number))
  )
    details.push({ field: `${at}.divisionId`, message: 'divisionId must be the id of a division' });
  if (details.length > before) return null;
  return {
    competitionTypeId: competitionTypeId as number,
    heatNumber: heatNumber as number,
    divisionId: (divisionId as number | null | undefined) ?? null,
  };
}

function mergeEntries(entries: UnavailableEntry[]): UnavailableEntry[] {
  const unique = new Map(entries.map((e) => [`${e.competitionTypeId}:${e.heatNumber}:${e.divisionId}`, e]));
  return [...unique.values()].sort(
    (a, b) =>
      a.competitionTypeId - b.competitionTypeId ||
      a.heatNumber - b.heatNumber ||
      (a.divisionId ?? -1) - (b.divisionId ?? -1),
  );
}

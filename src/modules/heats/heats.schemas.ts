import type { RequestHandler } from 'express';
import { param } from 'express-validator';
import { validationFailed } from '../../lib/errors.js';
import type { ReferenceData } from '../../lib/reference-data.js';
import { INT32_MAX } from '../../middleware/validators.js';

/** Messages of the heat body checks (documented in heats.openapi.ts). */
export const HeatMessages = {
  notArray: 'Heats must be a non-empty array',
  missingField: 'Each heat must have divisionId, competitionTypeId, and heatNumber',
  heatNumber: 'Heat number must be between 1 and 9',
  role: 'Role must be either Leader or Follower',
  tooMany: 'At most 100 heats can be submitted at once',
  badIds: 'divisionId and competitionTypeId must be positive integers',
  unknownDivision: 'Unknown division',
  unknownCompetitionType: 'Unknown competition type',
} as const;

export const MAX_HEATS_PER_SUBMISSION = 100;
export const ROLES = ['Leader', 'Follower'] as const;
export type HeatRole = (typeof ROLES)[number];

export interface HeatInput {
  divisionId: number;
  competitionTypeId: number;
  heatNumber: number;
  role: HeatRole | null;
}

/** Validated input of the event-scoped heat routes. */
export interface EventSlugInput {
  slug: string;
}
export interface ReplaceHeatsInput extends EventSlugInput {
  heats: HeatInput[];
}
export interface DeleteHeatInput extends EventSlugInput {
  /** undefined for anything but a positive integer: answered as an unknown heat (404) */
  id: number | undefined;
}

/** A positive 32-bit integer from a JSON number or a string of digits, else undefined. */
export function toPositiveInt(value: unknown): number | undefined {
  let n: number;
  if (typeof value === 'number') n = value;
  else if (typeof value === 'string' && /^\d{1,10}$/.test(value.trim())) n = Number(value.trim());
  else return undefined;
  return Number.isInteger(n) && n >= 1 && n <= INT32_MAX ? n : undefined;
}

const isMissing = (value: unknown) => value === undefined || value === null || value === '';

function fail(message: string, field: string): never {
  throw validationFailed([{ field, message }], message);
}

/** One heat of the body, checked in the documented order: missing fields → heat number → role → id format. */
function parseHeat(raw: unknown, i: number): HeatInput {
  const field = (name?: string) => (name ? `heats[${i}].${name}` : `heats[${i}]`);
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) fail(HeatMessages.missingField, field());
  const heat = raw as Record<string, unknown>;
  for (const key of ['divisionId', 'competitionTypeId', 'heatNumber']) {
    if (isMissing(heat[key])) fail(HeatMessages.missingField, field(key));
  }
  const heatNumber = toPositiveInt(heat.heatNumber);
  if (heatNumber === undefined || heatNumber > 9) fail(HeatMessages.heatNumber, field('heatNumber'));
  // null, absent or "" mean "no role" (stored as null); anything else must be exactly Leader/Follower.
  const role = isMissing(heat.role) ? null : heat.role;
  if (role !== null && !ROLES.includes(role as HeatRole)) fail(HeatMessages.role, field('role'));
  const divisionId = toPositiveInt(heat.divisionId);
  if (divisionId === undefined) fail(HeatMessages.badIds, field('divisionId'));
  const competitionTypeId = toPositiveInt(heat.competitionTypeId);
  if (competitionTypeId === undefined) fail(HeatMessages.badIds, field('competitionTypeId'));
  return { divisionId, competitionTypeId, heatNumber, role: role as HeatRole | null };
}

/**
 * The `heats` of POST /events/:slug/heats, normalized. Heats are checked in order; the first
 * problem throws 400 VALIDATION_ERROR with its own message as `error` and one `details` entry
 * naming the field. Unknown division or competition type ids are part of the body check.
 */
export function parseHeats(
  raw: unknown,
  known: { divisionIds: ReadonlySet<number>; competitionTypeIds: ReadonlySet<number> },
): HeatInput[] {
  if (!Array.isArray(raw) || raw.length === 0) fail(HeatMessages.notArray, 'heats');
  if (raw.length > MAX_HEATS_PER_SUBMISSION) fail(HeatMessages.tooMany, 'heats');
  const heats = raw.map((heat: unknown, i: number) => parseHeat(heat, i));
  heats.forEach((heat, i) => {
    if (!known.divisionIds.has(heat.divisionId)) {
      fail(`${HeatMessages.unknownDivision}: ${heat.divisionId}`, `heats[${i}].divisionId`);
    }
    if (!known.competitionTypeIds.has(heat.competitionTypeId)) {
      fail(`${HeatMessages.unknownCompetitionType}: ${heat.competitionTypeId}`, `heats[${i}].competitionTypeId`);
    }
  });
  return heats;
}

/** `:slug` of the event-scoped routes (kept in the validated input). */
export const eventSlugParam = [param('slug').isString()];

/** `:id` of DELETE /events/:slug/heats/:id; anything but a positive integer becomes undefined (an unknown heat). */
export const deleteHeatParams = [...eventSlugParam, param('id').customSanitizer((raw: unknown) => toPositiveInt(raw))];

/**
 * Body check of POST /events/:slug/heats, run before the event lookup. Not an express-validator
 * chain: the first problem in body order answers with its own message (see parseHeats), where
 * validate() answers "Validation failed". Ids are checked against the injected reference data.
 * The normalized heats join the validated input (`input<ReplaceHeatsInput>(res).heats`).
 */
export function heatsBody(reference: ReferenceData): RequestHandler {
  return async (req, res, next) => {
    const known = {
      divisionIds: await reference.divisionIds(),
      competitionTypeIds: await reference.competitionTypeIds(),
    };
    const heats = parseHeats((req.body as Record<string, unknown> | undefined)?.heats, known);
    res.locals.input = { ...(res.locals.input as object | undefined), heats };
    next();
  };
}

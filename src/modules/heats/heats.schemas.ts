import { validationFailed } from '../../lib/errors.js';
import { defineInput, f, type InputOf } from '../../middleware/input.js';
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
 * naming the field. Whether the ids exist is the service's check (knownHeatIds), still before
 * the event lookup.
 */
export function parseHeats(raw: unknown): HeatInput[] {
  if (!Array.isArray(raw) || raw.length === 0) fail(HeatMessages.notArray, 'heats');
  if (raw.length > MAX_HEATS_PER_SUBMISSION) fail(HeatMessages.tooMany, 'heats');
  return raw.map((heat: unknown, i: number) => parseHeat(heat, i));
}

/**
 * Unknown division or competition type ids of parsed heats: the first one throws 400
 * VALIDATION_ERROR "Unknown division: <id>" / "Unknown competition type: <id>" (part of the body
 * check, so before the event lookup).
 */
export function knownHeatIds(
  heats: readonly HeatInput[],
  known: { divisionIds: ReadonlySet<number>; competitionTypeIds: ReadonlySet<number> },
): void {
  heats.forEach((heat, i) => {
    if (!known.divisionIds.has(heat.divisionId)) {
      fail(`${HeatMessages.unknownDivision}: ${heat.divisionId}`, `heats[${i}].divisionId`);
    }
    if (!known.competitionTypeIds.has(heat.competitionTypeId)) {
      fail(`${HeatMessages.unknownCompetitionType}: ${heat.competitionTypeId}`, `heats[${i}].competitionTypeId`);
    }
  });
}

const idOrDigits = { type: ['integer', 'string'], description: 'a positive integer, or a string of digits' };

/** The body's JSON schema (the checks and their messages: parseHeats, documented in heats.openapi.ts). */
const heatsSchema = {
  type: 'array',
  minItems: 1,
  maxItems: MAX_HEATS_PER_SUBMISSION,
  items: {
    type: 'object',
    additionalProperties: false,
    required: ['divisionId', 'competitionTypeId', 'heatNumber'],
    properties: {
      divisionId: idOrDigits,
      competitionTypeId: idOrDigits,
      heatNumber: {
        type: ['integer', 'string'],
        minimum: 1,
        maximum: 9,
        description: '1-9 (a string of digits is accepted)',
      },
      role: { enum: [...ROLES, null, ''], description: 'absent, null or "" mean no role' },
    },
  },
};

const slug = f.slug();

/** `:slug` of the event-scoped heat routes. */
export const eventHeatsInput = defineInput('eventHeats', { params: { slug } });
export type EventSlugInput = InputOf<typeof eventHeatsInput>;

/**
 * POST /events/:slug/heats. The body is not checked field by field: the first problem in body
 * order answers with its own message (parseHeats), where other declarations answer "Validation
 * failed".
 */
export const replaceHeatsInput = defineInput('replaceHeats', {
  params: { slug },
  body: { heats: f.parsed<HeatInput[]>(heatsSchema, parseHeats) },
});
export type ReplaceHeatsInput = InputOf<typeof replaceHeatsInput>;

/** DELETE /events/:slug/heats/:id: anything but a positive integer becomes undefined (an unknown heat, 404). */
export const deleteHeatInput = defineInput('deleteHeat', {
  params: {
    slug,
    id: f
      .custom<number | undefined>({ type: 'string' }, (chain) =>
        chain.customSanitizer((raw: unknown) => toPositiveInt(raw)),
      )
      .describe('heat id (a positive integer; anything else is an unknown heat)'),
  },
});
export type DeleteHeatInput = InputOf<typeof deleteHeatInput>;

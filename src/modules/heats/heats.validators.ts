import { INT32_MAX } from '../../middleware/validators.js';
import type { NextFunction, Request, Response } from 'express';
import { body } from 'express-validator';
import { validationFailed, type ErrorDetail } from '../../lib/errors.js';
import { prisma } from '../../lib/prisma.js';

/** Messages of SPEC.md "Errors" (verbatim) and the ones decided here (documented in heats.openapi.ts). */
export const HeatMessages = {
  notArray: 'Heats must be a non-empty array',
  missingField: 'Each heat must have divisionId, competitionTypeId, and heatNumber',
  heatNumber: 'Heat number must be between 1 and 9',
  role: 'Role must be either Leader or Follower',
  duplicate: 'Cannot have duplicate heats with same role in same division and competition type',
  notFound: 'Heat not found',
  notOwner: 'You can only delete your own heats',
  // decided here
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

/**
 * Body validation of POST /events/:slug/heats, run before the event lookup (SPEC check order).
 * Heats are checked in order; the first problem answers with SPEC's message as `error`
 * (code VALIDATION_ERROR, one `details` entry naming the field). Unknown division or
 * competition type ids are part of the body check too (400, never a foreign-key 500).
 * On success `req.body.heats` holds normalized HeatInput objects.
 */
export async function validateHeatsBody(req: Request, _res: Response, next: NextFunction): Promise<void> {
  const heats: unknown = (req.body as Record<string, unknown> | undefined)?.heats;
  if (!Array.isArray(heats) || heats.length === 0) fail(HeatMessages.notArray, 'heats');
  if (heats.length > MAX_HEATS_PER_SUBMISSION) fail(HeatMessages.tooMany, 'heats');

  const normalized: HeatInput[] = heats.map((raw: unknown, i: number) => {
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
  });

  await assertReferenceIds(normalized);
  req.body.heats = normalized;
  next();
}

/** 400 when a heat names a division or competition type that does not exist. */
async function assertReferenceIds(heats: HeatInput[]): Promise<void> {
  const [divisions, types] = await Promise.all([
    prisma.division.findMany({ select: { id: true } }),
    prisma.competitionType.findMany({ select: { id: true } }),
  ]);
  const divisionIds = new Set(divisions.map((d) => d.id));
  const typeIds = new Set(types.map((t) => t.id));
  heats.forEach((heat, i) => {
    if (!divisionIds.has(heat.divisionId)) {
      fail(`${HeatMessages.unknownDivision}: ${heat.divisionId}`, `heats[${i}].divisionId`);
    }
    if (!typeIds.has(heat.competitionTypeId)) {
      fail(`${HeatMessages.unknownCompetitionType}: ${heat.competitionTypeId}`, `heats[${i}].competitionTypeId`);
    }
  });
}

// ---- settings ----------------------------------------------------------------------------

export const SettingsMessages = {
  competitorNumber: 'competitorNumber must be 1-10 letters or digits, or null',
  optOut: 'optOut must be a boolean',
  registrationDeadline: 'registrationDeadline must be an ISO 8601 date-time or null',
  scheduleConfigShape: 'scheduleConfig must be an object with a slots array, or null',
  slotShape: 'Each slot must have an integer order and a non-empty divisionIds array of integers',
  slotOrderDuplicate: 'Slot order values must be unique',
  divisionInTwoSlots: 'A division may appear in at most one slot',
  unknownDivision: 'Unknown division',
  tooManySlots: 'At most 50 slots are allowed',
} as const;

/** `competitorNumber`: string of 1-10 ASCII letters/digits, a non-negative integer (kept as its digits), or null to clear. */
export const competitorNumberRules = [
  body('competitorNumber').custom((value: unknown) => {
    if (value === null) return true;
    if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 && String(value).length <= 10) return true;
    if (typeof value === 'string' && /^[A-Za-z0-9]{1,10}$/.test(value)) return true;
    throw new Error(SettingsMessages.competitorNumber);
  }),
];

export const recorderOptOutRules = [
  body('optOut').custom((value: unknown) => {
    if (typeof value !== 'boolean') throw new Error(SettingsMessages.optOut);
    return true;
  }),
];

const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:T([01]\d|2[0-3]):([0-5]\d)(?::([0-5]\d)(?:\.\d{1,9})?)?(?:Z|[+-](?:[01]\d|2[0-3]):?[0-5]\d)?)?$/;

/** A full ISO 8601 calendar date or date-time naming a real day (no 30 February). */
export function isIsoDateTime(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const m = ISO_DATE_TIME.exec(value);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth && !Number.isNaN(Date.parse(value));
}

export const registrationDeadlineRules = [
  body('registrationDeadline').custom((value: unknown) => {
    if (value === null || isIsoDateTime(value)) return true;
    throw new Error(SettingsMessages.registrationDeadline);
  }),
];

export interface ScheduleSlot {
  order: number;
  divisionIds: number[];
}
export interface ScheduleConfig {
  slots: ScheduleSlot[];
}

const MAX_SLOTS = 50;

/**
 * Body validation of PUT /events/:slug/schedule-config: `{ scheduleConfig: { slots } | null }`
 * (DECISIONS.md). Slots: integer `order` (unique), non-empty `divisionIds` of known
 * divisions, a division in at most one slot. On success `req.body.scheduleConfig` holds the
 * normalized value (slots sorted by order, only `order` and `divisionIds` kept) or null.
 */
export async function validateScheduleConfigBody(req: Request, _res: Response, next: NextFunction): Promise<void> {
  const value: unknown = (req.body as Record<string, unknown> | undefined)?.scheduleConfig;
  if (value === null) {
    req.body.scheduleConfig = null;
    return next();
  }
  if (typeof value !== 'object' || value === undefined || Array.isArray(value)) {
    fail(SettingsMessages.scheduleConfigShape, 'scheduleConfig');
  }
  const slots = (value as Record<string, unknown>).slots;
  if (!Array.isArray(slots)) fail(SettingsMessages.scheduleConfigShape, 'scheduleConfig.slots');
  if (slots.length > MAX_SLOTS) fail(SettingsMessages.tooManySlots, 'scheduleConfig.slots');

  const orders = new Set<number>();
  const seenDivisions = new Set<number>();
  const details: ErrorDetail[] = [];
  const normalized: ScheduleSlot[] = slots.map((raw: unknown, i: number) => {
    const field = `scheduleConfig.slots[${i}]`;
    const slot = raw as Record<string, unknown> | null;
    if (
      slot === null ||
      typeof slot !== 'object' ||
      !Number.isSafeInteger(slot.order) ||
      !Array.isArray(slot.divisionIds) ||
      slot.divisionIds.length === 0 ||
      !slot.divisionIds.every((id) => Number.isInteger(id) && (id as number) >= 1 && (id as number) <= INT32_MAX)
    ) {
      fail(SettingsMessages.slotShape, field);
    }
    const order = slot.order as number;
    if (orders.has(order)) fail(SettingsMessages.slotOrderDuplicate, `${field}.order`);
    orders.add(order);
    const divisionIds = slot.divisionIds as number[];
    for (const id of divisionIds) {
      if (seenDivisions.has(id)) fail(SettingsMessages.divisionInTwoSlots, `${field}.divisionIds`);
      seenDivisions.add(id);
    }
    return { order, divisionIds: [...divisionIds] };
  });

  const known = new Set((await prisma.division.findMany({ select: { id: true } })).map((d) => d.id));
  for (const id of seenDivisions) {
    if (!known.has(id)) details.push({ field: 'scheduleConfig.slots', message: `${SettingsMessages.unknownDivision}: ${id}` });
  }
  if (details.length) throw validationFailed(details, details[0].message);

  normalized.sort((a, b) => a.order - b.order);
  req.body.scheduleConfig = { slots: normalized } satisfies ScheduleConfig;
  next();
}

/** `:id` of DELETE /events/:slug/heats/:id; anything but a positive integer is an unknown heat. */
export const parseHeatId = (raw: unknown) => toPositiveInt(typeof raw === 'string' ? raw : undefined);

import { validationFailed, type ErrorDetail } from '../../lib/errors.js';
import { defineInput, f, type InputOf } from '../../middleware/input.js';
import { INT32_MAX, isDateInRange } from '../../middleware/validators.js';

/**
 * The inputs of the per-event settings routes, each declared once (src/middleware/input.ts):
 * validation, the TypeScript type and the OpenAPI parameters and body. The settings keep their
 * own messages (documented in event-settings.openapi.ts), so their fields are custom chains.
 */

/** A slot order fits a 32-bit integer (the OpenAPI document's bound). */
const isInt32 = (v: unknown): boolean => Number.isInteger(v) && Math.abs(v as number) <= INT32_MAX;

/** Messages of the settings checks (documented in event-settings.openapi.ts). */
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

export interface ScheduleSlot {
  order: number;
  divisionIds: number[];
}
export interface ScheduleConfig {
  slots: ScheduleSlot[];
}

const ISO_DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:T([01]\d|2[0-3]):([0-5]\d)(?::([0-5]\d)(?:\.\d{1,9})?)?(?:Z|[+-](?:[01]\d|2[0-3]):?[0-5]\d)?)?$/;

/** A full ISO 8601 calendar date or date-time naming a real day (no 30 February). */
export function isIsoDateTime(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const m = ISO_DATE_TIME.exec(value);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth && !Number.isNaN(Date.parse(value));
}

/** An ISO date-time without offset is taken as UTC (JavaScript would read it as server-local time). */
function parseIsoAsUtc(value: string): Date {
  const hasOffset = /(Z|[+-]\d{2}:?\d{2})$/.test(value);
  return new Date(value.includes('T') && !hasOffset ? `${value}Z` : value);
}

const MAX_SLOTS = 50;

function fail(message: string, field: string): never {
  throw validationFailed([{ field, message }], message);
}

const isDivisionId = (id: unknown) => Number.isInteger(id) && (id as number) >= 1 && (id as number) <= INT32_MAX;

/**
 * `scheduleConfig`: `{ slots }` or null. Slots: integer `order` (unique), non-empty
 * `divisionIds`, a division in at most one slot. The first shape problem throws 400
 * VALIDATION_ERROR with its own message (whether the divisions exist: knownScheduleDivisions).
 * The result keeps only `order` and `divisionIds`, slots in body order (the service stores them
 * sorted by order).
 */
export function parseScheduleConfig(value: unknown): ScheduleConfig | null {
  if (value === null) return null;
  if (typeof value !== 'object' || value === undefined || Array.isArray(value)) {
    fail(SettingsMessages.scheduleConfigShape, 'scheduleConfig');
  }
  const slots = (value as Record<string, unknown>).slots;
  if (!Array.isArray(slots)) fail(SettingsMessages.scheduleConfigShape, 'scheduleConfig.slots');
  if (slots.length > MAX_SLOTS) fail(SettingsMessages.tooManySlots, 'scheduleConfig.slots');

  const orders = new Set<number>();
  const seenDivisions = new Set<number>();
  const normalized: ScheduleSlot[] = slots.map((raw: unknown, i: number) => {
    const field = `scheduleConfig.slots[${i}]`;
    const slot = raw as Record<string, unknown> | null;
    if (
      slot === null ||
      typeof slot !== 'object' ||
      !isInt32(slot.order) ||
      !Array.isArray(slot.divisionIds) ||
      slot.divisionIds.length === 0 ||
      !slot.divisionIds.every(isDivisionId)
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

  return { slots: normalized };
}

/**
 * Unknown divisions of a parsed schedule configuration: all listed together, 400 VALIDATION_ERROR
 * "Unknown division: <id>" (the first one as `error`). The end of the body check, made by the
 * service before the event lookup.
 */
export function knownScheduleDivisions(config: ScheduleConfig | null, knownDivisions: ReadonlySet<number>): void {
  const details: ErrorDetail[] = [];
  for (const id of new Set(config?.slots.flatMap((slot) => slot.divisionIds))) {
    if (!knownDivisions.has(id))
      details.push({ field: 'scheduleConfig.slots', message: `${SettingsMessages.unknownDivision}: ${id}` });
  }
  if (details.length) throw validationFailed(details, details[0].message);
}

const slug = f.slug();

/** `competitorNumber`: string of 1-10 ASCII letters/digits, a non-negative integer (kept as its digits), or null to clear. */
export const competitorNumberInput = defineInput('competitorNumber', {
  params: { slug },
  body: {
    competitorNumber: f.custom<string | null>(
      {
        type: ['string', 'integer', 'null'],
        pattern: '^[A-Za-z0-9]{1,10}$',
        minimum: 0,
        description: '1-10 ASCII letters or digits; a non-negative integer is stored as its digits; null clears',
      },
      (chain) =>
        chain
          .custom((value: unknown) => {
            if (value === null) return true;
            if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 && String(value).length <= 10)
              return true;
            if (typeof value === 'string' && /^[A-Za-z0-9]{1,10}$/.test(value)) return true;
            throw new Error(SettingsMessages.competitorNumber);
          })
          .bail()
          .customSanitizer((value: string | number | null) => (value === null ? null : String(value))),
    ),
  },
});
export type CompetitorNumberInput = InputOf<typeof competitorNumberInput>;

/** `optOut`: a JSON boolean. */
export const recorderOptOutInput = defineInput('recorderOptOut', {
  params: { slug },
  body: {
    optOut: f.custom<boolean>({ type: 'boolean' }, (chain) =>
      chain.custom((value: unknown) => {
        if (typeof value !== 'boolean') throw new Error(SettingsMessages.optOut);
        return true;
      }),
    ),
  },
});
export type RecorderOptOutInput = InputOf<typeof recorderOptOutInput>;

/** `registrationDeadline`: an ISO 8601 date or date-time naming a real day, 1900-9999 UTC, or null. */
export const registrationDeadlineInput = defineInput('registrationDeadline', {
  params: { slug },
  body: {
    registrationDeadline: f.custom<Date | null>(
      { type: ['string', 'null'], description: 'ISO 8601 date or date-time, or null' },
      (chain) =>
        chain
          .custom((value: unknown) => {
            // 1900-9999 UTC (isDateInRange): year 0 or a year-10000 instant is a 400, never a 500
            if (value === null || (isIsoDateTime(value) && isDateInRange(parseIsoAsUtc(value)))) return true;
            throw new Error(SettingsMessages.registrationDeadline);
          })
          .bail()
          .customSanitizer((value: string | null) => (value === null ? null : parseIsoAsUtc(value))),
    ),
  },
});
export type RegistrationDeadlineInput = InputOf<typeof registrationDeadlineInput>;

/**
 * `scheduleConfig`: its shape is checked by parseScheduleConfig (the first problem answers with
 * its own message); unknown divisions by the service (knownScheduleDivisions).
 */
export const scheduleConfigInput = defineInput('scheduleConfig', {
  params: { slug },
  body: {
    scheduleConfig: f.parsed<ScheduleConfig | null>(
      {
        oneOf: [{ $ref: '#/components/schemas/ScheduleConfig' }, { type: 'null' }],
        description: 'null or `{ slots: [] }`: every division is its own slot',
      },
      parseScheduleConfig,
    ),
  },
});
export type ScheduleConfigInput = InputOf<typeof scheduleConfigInput>;

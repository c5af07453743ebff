import type { Meta, ValidationChain } from 'express-validator';
import { defineInput, f, type InputOf } from '../../middleware/input.js';
import { INT32_MAX, isDateInRange, isPositiveInt32 } from '../../middleware/validators.js';

/**
 * The inputs of the moderation routes, each declared once (src/middleware/input.ts): validation,
 * the TypeScript type and the OpenAPI parameters and body (moderation.openapi.ts). Their messages
 * are those docs/moderation.md and the tests quote, so most fields are custom chains.
 */

export const REPORT_TARGET_TYPES = ['user', 'message', 'match'] as const;
export type ReportTargetType = (typeof REPORT_TARGET_TYPES)[number];
export const REPORT_REASONS = ['harassment', 'spam', 'inappropriate', 'safety', 'other'] as const;
export type ReportReason = (typeof REPORT_REASONS)[number];
export const REPORT_STATUSES = ['open', 'resolved', 'dismissed'] as const;
export type ReportStatus = (typeof REPORT_STATUSES)[number];
export const REPORT_CLOSING_STATUSES = ['resolved', 'dismissed'] as const;
export const REPORT_TEXT_MAX = 1000;
export const SUSPENSION_REASON_MAX = 500;

/** An optional free text of 0..max characters after trim (absent → undefined). */
const optionalTrimmed = (max: number, description: string) =>
  f
    .custom<string>({ type: 'string', maxLength: max, description }, (chain, name) =>
      chain
        .isString()
        .withMessage(`${name} must be a string`)
        .bail()
        .trim()
        .isLength({ max })
        .withMessage(`${name} must be at most ${max} characters`),
    )
    .optional();

/** One of `values`, refused with `message` (absent included). */
const oneOf = <const V extends readonly string[]>(values: V, message: string) =>
  f.custom<V[number]>({ enum: [...values] }, (chain) => chain.isIn(values).withMessage(message));

/** `:username`, looked up regardless of case by the services. */
const username = f
  .custom<string>({ type: 'string', minLength: 1, maxLength: 50 }, (chain) =>
    chain.isLength({ min: 1, max: 50 }).withMessage('Username must be at most 50 characters'),
  )
  .describe('looked up regardless of case');

/** A report or message id as given: a malformed one is an unknown one (404, existingId), never a 400. */
const idAsGiven = (what: string) =>
  f
    .param({ type: 'string', maxLength: 20, example: '1' })
    .describe(`${what} id; a malformed one answers 404 like an unknown one`);

/** POST/DELETE /users/:username/block and DELETE /admin/users/:username/suspend. */
export const usernameInput = defineInput('username', { params: { username } });
export type UsernameParam = InputOf<typeof usernameInput>;

/** targetId: a username for a user, a message id (integer) for a message, a match slug for a match. */
const targetIdMatchesType = (value: unknown, { req }: Meta): boolean => {
  const type = (req.body as { targetType?: unknown }).targetType;
  if (type === 'message') return isPositiveInt32(value);
  if (type === 'user') return typeof value === 'string' && value.length >= 1 && value.length <= 50;
  if (type === 'match') return typeof value === 'string' && value.length >= 1 && value.length <= 50;
  return value !== undefined && value !== null; // the targetType error is the one reported
};

export const createReportInput = defineInput('createReport', {
  body: {
    targetType: oneOf(REPORT_TARGET_TYPES, `targetType must be one of ${REPORT_TARGET_TYPES.join(', ')}`),
    targetId: f.custom<string | number>(
      {
        oneOf: [
          { type: 'string', minLength: 1, maxLength: 50 },
          { type: 'integer', minimum: 1, maximum: INT32_MAX },
        ],
        description: 'a username (user), a message id (message, an integer), a match slug (match)',
      },
      (chain: ValidationChain) =>
        chain
          .custom(targetIdMatchesType)
          .withMessage(
            `targetId must be a username (user), a message id from 1 to ${INT32_MAX} (message) or a match slug (match)`,
          ),
    ),
    reason: oneOf(REPORT_REASONS, `reason must be one of ${REPORT_REASONS.join(', ')}`),
    details: optionalTrimmed(REPORT_TEXT_MAX, 'trimmed; absent → ""'),
  },
});
export type CreateReportInput = InputOf<typeof createReportInput>;

export const listReportsInput = defineInput('listReports', {
  query: {
    status: oneOf(REPORT_STATUSES, `status must be one of ${REPORT_STATUSES.join(', ')}`)
      .describe('absent: all')
      .optional(),
    page: f
      .custom<number>({ type: 'integer', minimum: 1, maximum: 100000, default: 1 }, (chain) =>
        chain
          .isInt({ min: 1, max: 100_000 })
          .withMessage('page must be a whole number from 1 to 100000')
          .bail()
          .toInt(),
      )
      .optional(),
  },
});
export type ListReportsQuery = InputOf<typeof listReportsInput>;

export const closeReportInput = defineInput('closeReport', {
  params: { id: idAsGiven('report') },
  body: {
    status: oneOf(REPORT_CLOSING_STATUSES, 'status must be resolved or dismissed'),
    note: optionalTrimmed(REPORT_TEXT_MAX, 'trimmed'),
  },
});
export type CloseReportInput = InputOf<typeof closeReportInput>;

export const suspendInput = defineInput('suspend', {
  params: { username },
  body: {
    reason: f.custom<string>(
      { type: 'string', minLength: 1, maxLength: SUSPENSION_REASON_MAX, description: 'trimmed' },
      (chain) =>
        chain
          .exists({ values: 'null' })
          .withMessage('reason is required')
          .bail()
          .isString()
          .withMessage('reason must be a string')
          .bail()
          .trim()
          .isLength({ min: 1, max: SUSPENSION_REASON_MAX })
          .withMessage(`reason must be 1-${SUSPENSION_REASON_MAX} characters`),
    ),
    until: f
      .custom<Date | null>(
        {
          type: ['string', 'null'],
          format: 'date-time',
          description: 'in the future; absent or null: until lifted',
        },
        (chain) =>
          chain
            .custom((v) => typeof v === 'string')
            .withMessage('until must be an ISO 8601 timestamp')
            .bail()
            .isISO8601({ strict: true })
            .withMessage('until must be an ISO 8601 timestamp')
            .bail()
            .custom((v: string) => isDateInRange(new Date(v)))
            .withMessage('until must be between 1900-01-01 and 9999-12-31 (UTC)')
            .bail()
            .customSanitizer((v: string) => new Date(v)),
      )
      .optional('null'),
  },
});
/** `until` absent or null = until lifted. */
export type SuspendInput = InputOf<typeof suspendInput>;

/** DELETE /admin/messages/:id. */
export const messageIdInput = defineInput('messageId', { params: { id: idAsGiven('message') } });
export type IdParam = InputOf<typeof messageIdInput>;

/** A path id that may exist: a positive int32 written in decimal digits; anything else → undefined (→ 404). */
export function existingId(raw: string): number | undefined {
  if (!/^\d{1,10}$/.test(raw)) return undefined;
  const id = Number(raw);
  return isPositiveInt32(id) ? id : undefined;
}

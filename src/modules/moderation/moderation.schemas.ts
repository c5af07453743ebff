import { body, param, query, type Meta, type ValidationChain } from 'express-validator';
import { INT32_MAX, isDateInRange, isPositiveInt32 } from '../../middleware/validators.js';

/** Request inputs of the moderation feature (declared once; moderation.openapi.ts documents the same fields). */

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
const optionalTrimmed = (field: string, max: number): ValidationChain =>
  body(field)
    .optional()
    .isString()
    .withMessage(`${field} must be a string`)
    .bail()
    .trim()
    .isLength({ max })
    .withMessage(`${field} must be at most ${max} characters`);

/** targetId: a username for a user, a message id (integer) for a message, a match slug for a match. */
const targetIdMatchesType = (value: unknown, { req }: Meta): boolean => {
  const type = (req.body as { targetType?: unknown }).targetType;
  if (type === 'message') return isPositiveInt32(value);
  if (type === 'user') return typeof value === 'string' && value.length >= 1 && value.length <= 50;
  if (type === 'match') return typeof value === 'string' && value.length >= 1 && value.length <= 50;
  return value !== undefined && value !== null; // the targetType error is the one reported
};

export const createReportBody: ValidationChain[] = [
  body('targetType')
    .isIn(REPORT_TARGET_TYPES)
    .withMessage(`targetType must be one of ${REPORT_TARGET_TYPES.join(', ')}`),
  body('targetId')
    .custom(targetIdMatchesType)
    .withMessage(
      `targetId must be a username (user), a message id from 1 to ${INT32_MAX} (message) or a match slug (match)`,
    ),
  body('reason')
    .isIn(REPORT_REASONS)
    .withMessage(`reason must be one of ${REPORT_REASONS.join(', ')}`),
  optionalTrimmed('details', REPORT_TEXT_MAX),
];

export interface CreateReportInput {
  targetType: ReportTargetType;
  targetId: string | number;
  reason: ReportReason;
  details?: string;
}

export const listReportsQuery: ValidationChain[] = [
  query('status')
    .optional()
    .isIn(REPORT_STATUSES)
    .withMessage(`status must be one of ${REPORT_STATUSES.join(', ')}`),
  query('page')
    .optional()
    .isInt({ min: 1, max: 100_000 })
    .withMessage('page must be a whole number from 1 to 100000')
    .bail()
    .toInt(),
];

export interface ListReportsQuery {
  status?: ReportStatus;
  page?: number;
}

/** A report id as given: a malformed one is an unknown report (404), never a 400. */
export const reportIdParam: ValidationChain[] = [param('id').isString()];

export const updateReportBody: ValidationChain[] = [
  body('status').isIn(REPORT_CLOSING_STATUSES).withMessage('status must be resolved or dismissed'),
  optionalTrimmed('note', REPORT_TEXT_MAX),
];

export interface UpdateReportInput {
  status: (typeof REPORT_CLOSING_STATUSES)[number];
  note?: string;
}

export const suspendBody: ValidationChain[] = [
  body('reason')
    .exists({ values: 'null' })
    .withMessage('reason is required')
    .bail()
    .isString()
    .withMessage('reason must be a string')
    .bail()
    .trim()
    .isLength({ min: 1, max: SUSPENSION_REASON_MAX })
    .withMessage(`reason must be 1-${SUSPENSION_REASON_MAX} characters`),
  body('until')
    .optional({ values: 'null' })
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
];

export interface SuspendInput {
  reason: string;
  /** absent or null = until lifted */
  until?: Date | null;
}

export const usernameParam: ValidationChain[] = [
  param('username').isLength({ min: 1, max: 50 }).withMessage('Username must be at most 50 characters'),
];

export interface UsernameParam {
  username: string;
}

/** A message id as given: a malformed one is an unknown message (404). */
export const messageIdParam: ValidationChain[] = [param('id').isString()];

export interface IdParam {
  id: string;
}

/** A path id that may exist: a positive int32 written in decimal digits; anything else → undefined (→ 404). */
export function existingId(raw: string): number | undefined {
  if (!/^\d{1,10}$/.test(raw)) return undefined;
  const id = Number(raw);
  return isPositiveInt32(id) ? id : undefined;
}

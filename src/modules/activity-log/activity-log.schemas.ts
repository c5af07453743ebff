import type { ValidationChain } from 'express-validator';
import { defineInput, f, type InputOf } from '../../middleware/input.js';
import { isoDate } from '../../middleware/validators.js';
import { ACTIVITY_CATEGORIES } from './activity-log.views.js';

/**
 * The filter of GET /admin/activity-logs, declared once (src/middleware/input.ts): validation,
 * the TypeScript type and the OpenAPI query parameters. Every parameter is optional and may be
 * given once (a repeated parameter arrives as an array: 400 "<name> must be given once").
 */

/** An optional query parameter given once, then checked by `rest`. */
const single = <T>(schema: Record<string, unknown>, rest: (chain: ValidationChain, name: string) => ValidationChain) =>
  f
    .custom<T>(schema, (chain, name) =>
      rest(
        chain
          .custom((v) => typeof v === 'string')
          .withMessage(`${name} must be given once`)
          .bail(),
        name,
      ),
    )
    .optional();

const dateBound = single<Date>(
  {
    type: 'string',
    format: 'date-time',
    description: 'inclusive; ISO 8601, 1900-01-01 to 9999-12-31 UTC (else 400)',
  },
  (chain, name) => isoDate(chain, name),
);

export const activityLogInput = defineInput('activityLog', {
  query: {
    page: single<number>({ type: 'integer', minimum: 1, maximum: 100000, default: 1 }, (chain) =>
      chain.isInt({ min: 1, max: 100_000 }).withMessage('page must be a positive whole number').toInt(),
    ),
    category: single<(typeof ACTIVITY_CATEGORIES)[number]>({ enum: [...ACTIVITY_CATEGORIES] }, (chain) =>
      chain.isIn(ACTIVITY_CATEGORIES).withMessage(`category must be one of ${ACTIVITY_CATEGORIES.join(', ')}`),
    ),
    action: single<string>(
      { type: 'string', minLength: 1, maxLength: 100, description: 'exact action, e.g. login, login_failed' },
      (chain) => chain.isString().isLength({ min: 1, max: 100 }).withMessage('action must be 1-100 characters'),
    ),
    username: single<string>(
      {
        type: 'string',
        minLength: 1,
        maxLength: 50,
        description: 'exact, case-insensitive, literal (`%` and `_` are characters, not wildcards)',
      },
      (chain) => chain.isString().isLength({ min: 1, max: 50 }).withMessage('username must be 1-50 characters'),
    ),
    success: single<boolean>({ enum: ['true', 'false'] }, (chain) =>
      chain.isIn(['true', 'false']).withMessage('success must be true or false').toBoolean(true),
    ),
    from: dateBound,
    to: dateBound,
  },
});
export type ActivityLogQuery = InputOf<typeof activityLogInput>;

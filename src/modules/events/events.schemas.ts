import { body, query } from 'express-validator';
import { isoDate, pathParam } from '../../middleware/validators.js';
import type { EventFields, QrFormat } from './events.service.js';

/**
 * Input rules of the events routes (400 "Validation failed" + details through validate()).
 * Slugs and check-in tokens are not validated: any unknown value is a 404 (events.openapi.ts).
 */

export const slugParams = [pathParam('slug')];
export const checkinParams = [pathParam('token')];

export const qrQuery = [
  pathParam('slug'),
  query('format').optional().isIn(['png', 'svg']).withMessage('format must be png or svg'),
];

/** A date of the shared atom (ISO 8601, 1900-9999 UTC): `[]` or year 0 is a 400, never a 500. */
const eventDate = (field: string, optional: boolean) => {
  const chain = body(field);
  return isoDate(
    optional ? chain.optional() : chain.exists({ values: 'undefined' }).withMessage(`${field} is required`).bail(),
    field,
  );
};

const requiredText = (field: string, max: number, optional: boolean) => {
  const chain = body(field);
  return (
    optional ? chain.optional() : chain.exists({ values: 'undefined' }).withMessage(`${field} is required`).bail()
  )
    .isString()
    .withMessage(`${field} must be a string`)
    .bail()
    .trim()
    .isLength({ min: 1, max })
    .withMessage(`${field} must be 1-${max} characters`);
};

const optionalText = (field: string, max: number) =>
  body(field)
    .optional({ values: 'null' })
    .isString()
    .withMessage(`${field} must be a string or null`)
    .bail()
    .trim()
    .isLength({ max })
    .withMessage(`${field} must be at most ${max} characters`);

const eventBody = (optional: boolean) => [
  requiredText('name', 200, optional),
  requiredText('location', 200, optional),
  eventDate('startDate', optional),
  eventDate('endDate', optional),
  optionalText('worldRegistryId', 50),
  optionalText('description', 5000),
];

export const createEventRules = eventBody(false);
/** PATCH: every field optional; null clears an optional text (undefined = not given). */
export const updateEventRules = [pathParam('slug'), ...eventBody(true)];

export interface SlugInput {
  slug: string;
}
export interface CheckinInput {
  token: string;
}
export interface QrInput {
  slug: string;
  format?: QrFormat;
}
export type CreateEventInput = EventFields;
export interface UpdateEventInput extends Partial<EventFields> {
  slug: string;
}

import { defineInput, f, type InputOf } from '../../middleware/input.js';

/**
 * The inputs of the events routes, each declared once (src/middleware/input.ts): validation
 * (400 "Validation failed" with details), the TypeScript type and the OpenAPI parameters and body.
 * Slugs and check-in tokens are kept as given: an unknown value is the service's 404.
 */

export const slugInput = defineInput('eventSlug', { params: { slug: f.slug() } });
export type SlugInput = InputOf<typeof slugInput>;

export const checkinInput = defineInput('checkin', {
  params: { token: f.param().describe('the token encoded in the QR code') },
});
export type CheckinInput = InputOf<typeof checkinInput>;

export const qrInput = defineInput('checkinQr', {
  params: { slug: f.slug() },
  query: {
    format: f
      .oneOf(['png', 'svg'] as const, { message: 'format must be png or svg' })
      .describe('image format', { default: 'png' })
      .optional(),
  },
});
export type QrInput = InputOf<typeof qrInput>;

/** The fields of an event an admin sets (POST creates with them; PATCH changes those given). */
const eventFields = {
  name: f.text({ max: 200 }),
  location: f.text({ max: 200 }),
  startDate: f.date(),
  endDate: f.date().describe('ISO 8601, 1900-01-01 to 9999-12-31 UTC; not before startDate'),
  worldRegistryId: f.nullableText({ max: 50 }),
  description: f.nullableText({ max: 5000 }),
};

export const createEventInput = defineInput('createEvent', { body: eventFields });
export type CreateEventInput = InputOf<typeof createEventInput>;

/** PATCH: every field optional; null clears an optional text (undefined = not given). */
export const updateEventInput = defineInput('updateEvent', {
  params: { slug: f.slug() },
  body: {
    name: eventFields.name.optional(),
    location: eventFields.location.optional(),
    startDate: eventFields.startDate.optional(),
    endDate: eventFields.endDate.optional(),
    worldRegistryId: eventFields.worldRegistryId,
    description: eventFields.description,
  },
});
export type UpdateEventInput = InputOf<typeof updateEventInput>;

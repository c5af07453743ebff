/**
 * The event object (GET /events/:slug and the admin answers): the one list of its fields. The
 * Prisma `select` below and the OpenAPI schema (`eventProperties` in src/docs/openapi-helpers.ts,
 * typed against EventObjectField so a field missing on either side fails the type check) come
 * from it, so a new column of Event stays private until it is added here.
 */
export const EVENT_OBJECT_FIELDS = [
  'id',
  'slug',
  'name',
  'location',
  'startDate',
  'endDate',
  'worldRegistryId',
  'participantsCount',
  'description',
  'createdAt',
  'updatedAt',
  'registrationDeadline',
  'matchingRunAt',
  'scheduleConfig',
] as const;

export type EventObjectField = (typeof EVENT_OBJECT_FIELDS)[number];

/** Prisma select of the event object. */
export const eventObjectSelect = Object.fromEntries(EVENT_OBJECT_FIELDS.map((f) => [f, true])) as Record<
  EventObjectField,
  true
>;

import { defineView, v, type ViewOf } from '../../lib/view.js';

/**
 * The views of events (owned tables: Event, EventParticipant, EventCheckinToken). Each is the one
 * declaration of its fields: the Prisma select, the SQL select list, the row type and the OpenAPI
 * schema come from it (src/lib/view.ts), so a new column of Event stays private until it is
 * declared here, and a field declared here reaches every read and the document at once.
 */

/** The group schedule of an event (PATCH /admin/events/:slug/schedule-config); null until set. */
export const scheduleConfigSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['slots'],
  properties: {
    slots: {
      type: 'array',
      maxItems: 50,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['order', 'divisionIds'],
        properties: {
          order: {
            type: 'integer',
            minimum: -2147483648,
            maximum: 2147483647,
            description: 'unique among the slots (a 32-bit integer)',
          },
          divisionIds: { type: 'array', items: { type: 'integer' }, minItems: 1 },
        },
      },
    },
  },
};

/** The smallest reference to an event (component EventRef), e.g. the event of a match. */
export const eventRefView = defineView('EventRef', { id: v.int(), slug: v.str(), name: v.str() }, { alias: 'e' });

/** The fields every event view starts with (the brief view is exactly these). */
const eventBriefFields = {
  ...eventRefView.fields,
  location: v.str(),
  startDate: v.dateTime(),
  endDate: v.dateTime(),
};

/** The event object: GET /events/:slug (with its room and match count) and the admin answers. */
export const eventObjectView = defineView(
  'Event',
  {
    ...eventBriefFields,
    worldRegistryId: v.nullStr(),
    participantsCount: v.int(),
    description: v.nullStr(),
    createdAt: v.dateTime(),
    updatedAt: v.dateTime(),
    registrationDeadline: v.nullDateTime(),
    matchingRunAt: v.nullDateTime(),
    scheduleConfig: v.json<unknown>({ oneOf: [{ $ref: '#/components/schemas/ScheduleConfig' }, { type: 'null' }] }),
  },
  { alias: 'e' },
);
export type EventObject = ViewOf<typeof eventObjectView>;

/**
 * An event in GET /events, for the caller (the statement joins the caller's participation as
 * `p`). participantsCount is the live count of participation records (SPEC, event summary),
 * read through the index EventParticipant(eventId, joinedAt), not the stored counter.
 */
export const eventSummaryView = defineView(
  'EventSummary',
  {
    ...eventBriefFields,
    worldRegistryId: v.nullStr(),
    participantsCount: v
      .int()
      .sql('(SELECT count(*)::int FROM "EventParticipant" c WHERE c."eventId" = e.id)')
      .describe('live count of participation records'),
    description: v.nullStr(),
    createdAt: v.dateTime(),
    isJoined: v.bool().sql('(p.id IS NOT NULL)'),
    joinedAt: v.nullDateTime().sql('p."joinedAt"'),
  },
  { alias: 'e' },
);
export type EventSummary = ViewOf<typeof eventSummaryView>;

/** The event of a check-in answer and of the data export's participations. */
export const eventBriefView = defineView('EventBrief', eventBriefFields, { alias: 'e' });

/** A participant in the details view (a user summary with the time of joining), over u (User) and p (EventParticipant). */
export const participantView = defineView(
  'EventParticipant',
  {
    userId: v.int().sql('u.id'),
    username: v.str().sql('u.username'),
    avatar: v.str().sql('u.avatar'),
    firstName: v.nullStr().sql('u."firstName"'),
    lastName: v.nullStr().sql('u."lastName"'),
    joinedAt: v.dateTime().sql('p."joinedAt"'),
  },
  { alias: 'p' },
);
export type ParticipantView = ViewOf<typeof participantView>;

/** Every view of this feature, registered as OpenAPI components by src/docs/openapi.ts. */
export const eventsViews = [eventRefView, eventObjectView, eventSummaryView, eventBriefView, participantView];

/**
 * OpenAPI paths of the heats feature (merged by src/docs/openapi.ts); the descriptions state
 * the rules and check orders the tests in tests/heats hold.
 */

const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});
const json = (schema: unknown, description = 'OK') => ({ description, content: { 'application/json': { schema } } });
const slugParam = { name: 'slug', in: 'path', required: true, schema: { type: 'string' } };

const reference = {
  type: 'object',
  required: ['id', 'name', 'abbreviation'],
  properties: { id: { type: 'integer' }, name: { type: 'string' }, abbreviation: { type: 'string' } },
};

const heat = {
  type: 'object',
  required: ['id', 'divisionId', 'division', 'competitionTypeId', 'competitionType', 'heatNumber', 'role'],
  properties: {
    id: { type: 'integer' },
    divisionId: { type: 'integer' },
    division: reference,
    competitionTypeId: { type: 'integer' },
    competitionType: reference,
    heatNumber: { type: 'integer', minimum: 1, maximum: 9 },
    role: { type: ['string', 'null'], enum: ['Leader', 'Follower', null] },
  },
};
const heatWithNumber = {
  ...heat,
  required: [...heat.required, 'competitorNumber'],
  properties: { ...heat.properties, competitorNumber: { type: ['string', 'null'] } },
};

const heatList = (items: unknown) => ({
  type: 'object',
  properties: { success: { const: true }, count: { type: 'integer' }, data: { type: 'array', items } },
});
const dataOf = (schema: unknown) => ({ type: 'object', properties: { success: { const: true }, data: schema } });

const unauthorized = errorResponse('No or invalid token ("Authentication required" / "Invalid or expired token")');
const eventNotFound = errorResponse('"Event not found"');
const notParticipant = errorResponse('"You must be a participant of this event"');

export const heatsOpenApi: Record<string, unknown> = {
  '/divisions': {
    get: {
      tags: ['Heats'],
      summary: 'Divisions (reference data)',
      description: 'No token needed. Ordered by id; ids are stable (seeded in a fixed order).',
      security: [],
      responses: { 200: json(dataOf({ type: 'array', items: reference })) },
    },
  },
  '/competition-types': {
    get: {
      tags: ['Heats'],
      summary: 'Competition types (reference data)',
      description: 'No token needed. Ordered by id.',
      security: [],
      responses: { 200: json(dataOf({ type: 'array', items: reference })) },
    },
  },
  '/events/{slug}/heats': {
    post: {
      tags: ['Heats'],
      summary: "Replace all the caller's heats at the event",
      description: [
        'Participants only. Atomic replacement: the previous heats are deleted and the submitted ones inserted in one',
        'transaction; any failure leaves the previous set untouched. Concurrent submissions of one user at one event',
        'are serialized (row lock on the participation), so the final set is exactly one submission.',
        '',
        'Check order: body validation (400) → event (404) → participation (403) → duplicates (400).',
        'Body validation answers the message of the first problem as `error` (code VALIDATION_ERROR, with one `details` entry naming',
        'the field, e.g. `heats[1].heatNumber`); heats are checked in order and, within a heat, missing fields →',
        'heat number → role → id format. Messages: "Heats must be a non-empty array" (missing, not an array, empty);',
        '"Each heat must have divisionId, competitionTypeId, and heatNumber" (a heat that is not an object, or lacks one',
        'of them — null or "" counts as missing); "Heat number must be between 1 and 9" (also for non-integers);',
        '"Role must be either Leader or Follower" (case-sensitive; absent, null or "" mean no role, stored as null).',
        'Decided here: ids and heatNumber may be JSON integers or strings of digits; other id values → 400',
        '"divisionId and competitionTypeId must be positive integers"; unknown ids → 400 "Unknown division: <id>" /',
        '"Unknown competition type: <id>" (part of body validation, so before the event lookup); more than 100 heats →',
        '400 "At most 100 heats can be submitted at once".',
        '',
        'Duplicates — the same role, or both without role, in the same division and competition type — are refused by',
        'the database\'s unique index: 400 "Cannot have duplicate heats with same role in same division and competition',
        'type" (code DUPLICATE_HEAT). A role-less heat beside a Leader or Follower heat in the same division and type is',
        'allowed.',
        '',
        'Answers 200 (a replacement) with the caller\'s heats after replacement, ordered like heats/me (without',
        'competitorNumber). After the commit, `heats_updated` { userId, username, heats } is broadcast to',
        '`event_<event id>`; a broadcast failure never fails the request. Logged as activity `event/heats_save`.',
      ].join('\n'),
      parameters: [slugParam],
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: {
              type: 'object',
              required: ['heats'],
              properties: {
                heats: {
                  type: 'array',
                  minItems: 1,
                  maxItems: 100,
                  items: {
                    type: 'object',
                    required: ['divisionId', 'competitionTypeId', 'heatNumber'],
                    properties: {
                      divisionId: { type: 'integer' },
                      competitionTypeId: { type: 'integer' },
                      heatNumber: { type: 'integer', minimum: 1, maximum: 9 },
                      role: { type: ['string', 'null'], enum: ['Leader', 'Follower', null] },
                    },
                  },
                },
              },
            },
          },
        },
      },
      responses: {
        200: json(heatList(heat)),
        400: errorResponse('Validation failure or duplicate heats (messages above)'),
        401: unauthorized,
        403: notParticipant,
        404: eventNotFound,
      },
    },
  },
  '/events/{slug}/heats/me': {
    get: {
      tags: ['Heats'],
      summary: "The caller's heats at the event",
      description:
        'Ordered by competitionTypeId, divisionId, heatNumber (then role, id). Every heat carries the caller\'s ' +
        'competitorNumber. Decided here: a non-participant gets 200 with an empty list.',
      parameters: [slugParam],
      responses: { 200: json(heatList(heatWithNumber)), 401: unauthorized, 404: eventNotFound },
    },
  },
  '/events/{slug}/heats/all': {
    get: {
      tags: ['Heats'],
      summary: 'All heats at the event, grouped per user',
      description:
        'Only users with at least one heat; `count` is the number of users. Groups are ordered by username, heats ' +
        'within a group like heats/me. competitorNumber is on each group and on each heat. Decided here: any ' +
        'authenticated user may read it, participant or not.',
      parameters: [slugParam],
      responses: {
        200: json(
          heatList({
            type: 'object',
            required: ['userId', 'username', 'avatar', 'competitorNumber', 'heats'],
            properties: {
              userId: { type: 'integer' },
              username: { type: 'string' },
              avatar: { type: 'string' },
              competitorNumber: { type: ['string', 'null'] },
              heats: { type: 'array', items: heatWithNumber },
            },
          }),
        ),
        401: unauthorized,
        404: eventNotFound,
      },
    },
  },
  '/events/{slug}/heats/{id}': {
    delete: {
      tags: ['Heats'],
      summary: 'Delete one of the caller\'s heats',
      description:
        'Check order: event 404 "Event not found" → heat 404 "Heat not found" (also for a heat of another event and ' +
        'for an id that is not a positive integer) → owner 403 "You can only delete your own heats". Answers ' +
        '`{ success: true, message: "Heat deleted successfully" }`. Decided here: also broadcasts `heats_updated` ' +
        'with the user\'s remaining heats so live lists stay in sync. Logged as `event/heat_delete`.',
      parameters: [slugParam, { name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
      responses: {
        200: json({ type: 'object', properties: { success: { const: true }, message: { type: 'string' } } }),
        401: unauthorized,
        403: errorResponse('"You can only delete your own heats"'),
        404: errorResponse('"Event not found" or "Heat not found"'),
      },
    },
  },
};

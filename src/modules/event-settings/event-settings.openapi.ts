/** OpenAPI paths of the per-event settings (merged by src/docs/openapi.ts). */

const errorResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});
const json = (schema: unknown, description = 'OK') => ({ description, content: { 'application/json': { schema } } });
const slugParam = { name: 'slug', in: 'path', required: true, schema: { type: 'string' } };
const dataOf = (schema: unknown) => ({ type: 'object', properties: { success: { const: true }, data: schema } });

const unauthorized = errorResponse('No or invalid token ("Authentication required" / "Invalid or expired token")');
const eventNotFound = errorResponse('"Event not found"');
const notParticipant = errorResponse('"You must be a participant of this event"');
const adminRequired = errorResponse('"Admin access required"');

const scheduleConfig = {
  type: ['object', 'null'],
  required: ['slots'],
  properties: {
    slots: {
      type: 'array',
      maxItems: 50,
      items: {
        type: 'object',
        required: ['order', 'divisionIds'],
        properties: {
          order: { type: 'integer', description: 'unique among the slots' },
          divisionIds: { type: 'array', minItems: 1, items: { type: 'integer' } },
        },
      },
    },
  },
};

export const eventSettingsOpenApi: Record<string, unknown> = {
  '/events/{slug}/competitor-number': {
    put: {
      tags: ['Event settings'],
      summary: 'Set or clear the caller\'s competitor (bib) number at the event',
      description:
        'Participants only. `competitorNumber`: 1-10 ASCII letters or digits, or null to clear (a non-negative ' +
        'integer is accepted and stored as its digits). Other values → 400 "Validation failed" (details). ' +
        'Check order: validation 400 → event 404 → participation 403. Numbers are not unique per event. ' +
        'Answers `data: { competitorNumber }`. Logged as `event/competitor_number_update`.',
      parameters: [slugParam],
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: {
              type: 'object',
              required: ['competitorNumber'],
              properties: { competitorNumber: { type: ['string', 'null'], pattern: '^[A-Za-z0-9]{1,10}$' } },
            },
          },
        },
      },
      responses: {
        200: json(dataOf({ type: 'object', properties: { competitorNumber: { type: ['string', 'null'] } } })),
        400: errorResponse('Validation failed'),
        401: unauthorized,
        403: notParticipant,
        404: eventNotFound,
      },
    },
  },
  '/events/{slug}/recorder-opt-out': {
    put: {
      tags: ['Event settings'],
      summary: 'Set the caller\'s recorder opt-out at the event',
      description:
        'Participants only. `optOut` must be a JSON boolean. Answers `data: { recorderOptOut }`. ' +
        'Check order: validation 400 → event 404 → participation 403. Logged as `event/recorder_opt_out_update`.',
      parameters: [slugParam],
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: { type: 'object', required: ['optOut'], properties: { optOut: { type: 'boolean' } } },
          },
        },
      },
      responses: {
        200: json(dataOf({ type: 'object', properties: { recorderOptOut: { type: 'boolean' } } })),
        400: errorResponse('Validation failed'),
        401: unauthorized,
        403: notParticipant,
        404: eventNotFound,
      },
    },
  },
  '/events/{slug}/registration-deadline': {
    put: {
      tags: ['Event settings'],
      summary: 'Set or clear the event\'s heat registration deadline (admin)',
      description:
        'Admin only (others 403 "Admin access required"). `registrationDeadline`: an ISO 8601 calendar date or ' +
        'date-time naming a real day (an offset is honoured; without one the value is taken as UTC), or null. Check order: 401 → 403 → validation 400 → event 404. ' +
        'Answers `data: { registrationDeadline }` (ISO string or null). Logged as `admin/registration_deadline_update`.',
      parameters: [slugParam],
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: {
              type: 'object',
              required: ['registrationDeadline'],
              properties: { registrationDeadline: { type: ['string', 'null'], format: 'date-time' } },
            },
          },
        },
      },
      responses: {
        200: json(dataOf({ type: 'object', properties: { registrationDeadline: { type: ['string', 'null'], format: 'date-time' } } })),
        400: errorResponse('Validation failed'),
        401: unauthorized,
        403: adminRequired,
        404: eventNotFound,
      },
    },
  },
  '/events/{slug}/schedule-config': {
    put: {
      tags: ['Event settings'],
      summary: 'Set which divisions share a time slot (admin)',
      description: [
        'Admin only (others 403 "Admin access required"). Body `{ scheduleConfig: { slots: [{ order, divisionIds }] } | null }`;',
        'null or `{ slots: [] }` means every division is its own slot. Check order: 401 → 403 → validation 400 → event 404.',
        'Validation (400, code VALIDATION_ERROR, the message as `error`): "scheduleConfig must be an object with a slots',
        'array, or null"; "Each slot must have an integer order and a non-empty divisionIds array of integers"; "Slot',
        'order values must be unique"; "A division may appear in at most one slot" (also twice in one slot);',
        '"Unknown division: <id>"; "At most 50 slots are allowed". The stored value keeps only `order` and',
        '`divisionIds`, slots sorted by order. Answers `data: { scheduleConfig }`. Logged as `admin/schedule_config_update`.',
      ].join('\n'),
      parameters: [slugParam],
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: { type: 'object', required: ['scheduleConfig'], properties: { scheduleConfig } },
          },
        },
      },
      responses: {
        200: json(dataOf({ type: 'object', properties: { scheduleConfig } })),
        400: errorResponse('Validation failure (messages above)'),
        401: unauthorized,
        403: adminRequired,
        404: eventNotFound,
      },
    },
  },
};

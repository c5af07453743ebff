/** OpenAPI paths of this feature (merged by src/docs/openapi.ts). */
const bearer = [{ bearer: [] }];
const error = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});
const slug = { name: 'slug', in: 'path', required: true, schema: { type: 'string', maxLength: 50 } };
const json = (schema: object, description = 'OK') => ({ description, content: { 'application/json': { schema } } });

const eventSummary = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    slug: { type: 'string' },
    name: { type: 'string' },
    location: { type: 'string' },
    startDate: { type: 'string', format: 'date-time' },
    endDate: { type: 'string', format: 'date-time' },
    worldRegistryId: { type: ['string', 'null'] },
    participantsCount: { type: 'integer', description: 'live count of participation records' },
    description: { type: ['string', 'null'] },
    createdAt: { type: 'string', format: 'date-time' },
    isJoined: { type: 'boolean' },
    joinedAt: { type: ['string', 'null'], format: 'date-time' },
  },
};

const eventBody = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 200 },
    location: { type: 'string', minLength: 1, maxLength: 200 },
    startDate: { type: 'string', format: 'date-time' },
    endDate: { type: 'string', format: 'date-time', description: 'not before startDate' },
    worldRegistryId: { type: ['string', 'null'], maxLength: 50 },
    description: { type: ['string', 'null'], maxLength: 5000 },
  },
};

export const eventsOpenApi: Record<string, unknown> = {
  '/events': {
    get: {
      tags: ['events'],
      summary: 'Event summaries: events the caller joined first, then by startDate ascending (no paging)',
      security: bearer,
      responses: {
        200: json({ type: 'object', properties: { success: { const: true }, count: { type: 'integer' }, data: { type: 'array', items: eventSummary } } }),
        401: error('Authentication required'),
      },
    },
  },
  '/events/{slug}': {
    get: {
      tags: ['events'],
      summary: 'Public view of an event: every event field, `chatRooms` (the event group room only, never private rooms) and `_count.matches`',
      parameters: [slug],
      responses: { 200: json({ type: 'object' }), 404: error('Event not found') },
    },
  },
  '/events/{slug}/details': {
    get: {
      tags: ['events'],
      summary: 'Event details, participants (newest join first) and, for admins and participants, the check-in block',
      description: [
        '`data: { event, checkin, participants, stats: { totalParticipants } }`.',
        '`checkin: { token, url, validFrom, validUntil }` is given to admins and participants of the event only;',
        'other authenticated callers get `checkin: null` (the QR code is meant to be shown at the venue; handing the',
        'token to any account would allow remote check-in). The token is created on the first such request and reused.',
        '`url` = FRONTEND_URL + `/events/checkin/<token>`; validFrom = startDate − 1 day; validUntil = endDate + 1 day.',
      ].join(' '),
      security: bearer,
      parameters: [slug],
      responses: { 200: json({ type: 'object' }), 401: error('Authentication required'), 404: error('Event not found') },
    },
  },
  '/events/{slug}/checkin-qr': {
    get: {
      tags: ['events'],
      summary: 'The check-in URL as a QR code image (admins and participants)',
      security: bearer,
      parameters: [slug, { name: 'format', in: 'query', schema: { enum: ['png', 'svg'], default: 'png' } }],
      responses: {
        200: {
          description: 'image/png (512 px) or image/svg+xml; Cache-Control: private, no-store',
          content: { 'image/png': {}, 'image/svg+xml': {} },
        },
        400: error('Validation failed (format not png or svg)'),
        403: error('Only admins and participants can see the check-in QR code'),
        404: error('Event not found'),
      },
    },
  },
  '/events/checkin/{token}': {
    post: {
      tags: ['events'],
      summary: 'Check in with the token of the QR code (idempotent)',
      description: [
        'Answers 200 `data: { alreadyCheckedIn, event: { id, slug, name, location, startDate, endDate }, joinedAt }`.',
        'A new participation and participantsCount + 1 are written in one transaction (unique userId+eventId decides',
        'concurrent requests). The event chat room is created at the first check-in if missing.',
        'Only with NODE_ENV=production, a request outside [validFrom, validUntil] gives 400.',
      ].join(' '),
      security: bearer,
      parameters: [{ name: 'token', in: 'path', required: true, schema: { type: 'string', maxLength: 64 } }],
      responses: {
        200: json({ type: 'object' }),
        400: error('Check-in is not available for this event at this time'),
        401: error('Authentication required'),
        404: error('Invalid check-in token'),
      },
    },
  },
  '/events/{slug}/leave': {
    delete: {
      tags: ['events'],
      summary: 'Leave an event: the participation and the caller\'s heats go, participantsCount − 1 (one transaction); the caller\'s sockets leave the event room',
      security: bearer,
      parameters: [slug],
      responses: {
        200: json({ type: 'object', properties: { success: { const: true }, message: { type: 'string', examples: ['You have left the event'] } } }),
        400: error('You are not a participant of this event'),
        404: error('Event not found'),
      },
    },
  },
  '/admin/events': {
    post: {
      tags: ['admin', 'events'],
      summary: 'Create an event (admin); the slug is random alphanumeric (16 characters)',
      security: bearer,
      requestBody: { required: true, content: { 'application/json': { schema: { ...eventBody, required: ['name', 'location', 'startDate', 'endDate'] } } } },
      responses: {
        201: json({ type: 'object' }, 'Created: data is the event'),
        400: error('Validation failed'),
        401: error('Authentication required'),
        403: error('Admin access required'),
      },
    },
  },
  '/admin/events/{slug}': {
    patch: {
      tags: ['admin', 'events'],
      summary: 'Update an event (admin): any of the fields; null or "" clears worldRegistryId / description; other fields are ignored',
      security: bearer,
      parameters: [slug],
      requestBody: { required: true, content: { 'application/json': { schema: eventBody } } },
      responses: {
        200: json({ type: 'object' }),
        400: error('Validation failed (also endDate before startDate after merging with the stored dates)'),
        403: error('Admin access required'),
        404: error('Event not found'),
      },
    },
  },
};

/** OpenAPI paths of this feature (merged by src/docs/openapi.ts). */
const error = (description: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

export const chatOpenApi: Record<string, unknown> = {
  '/events/{slug}/messages': {
    get: {
      tags: ['chat'],
      summary: 'History of the event group chat (participants only)',
      description: [
        'Answers `{ success, data: messages, hasMore }` (no `count`). The newest `limit` messages (with `before`:',
        'whose id is lower than `before`) are selected, then returned oldest first. `hasMore` is true when the number',
        'returned equals `limit`. Each message: id, roomId, userId, username, avatar, content (plain text, exactly as',
        'sent), type, createdAt. Checks in order: event 404 → participant 403 → room 404.',
        'Real-time side (Socket.IO): `join_event_room(slug)` → joins `event_<id>` (leaving a previously joined event',
        'room), emits `message_history` (last 20, oldest first) and broadcasts `active_users` [{ userId, username,',
        'avatar }] (one entry per user); the ack carries `{ eventId, slug, roomId }`. `leave_event_room`.',
        '`send_event_message({ content })` → `event_message` to the room only; ack data is the message. Refusals',
        '(ack `{ success: false, error }` or `error_message`): "Join an event room first", content rules (1-2000',
        'characters after trim), "You are sending messages too fast" (per user, 5 messages/s, bursts of 10),',
        '"Email verification required", "You must be a participant of this event" (re-checked on every send).',
      ].join(' '),
      security: [{ bearer: [] }],
      parameters: [
        { name: 'slug', in: 'path', required: true, schema: { type: 'string', maxLength: 50 } },
        { name: 'before', in: 'query', schema: { type: 'integer', minimum: 1 } },
        { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } },
      ],
      responses: {
        200: {
          description: 'OK',
          content: {
            'application/json': {
              schema: {
                type: 'object',
                properties: { success: { const: true }, data: { type: 'array', items: { type: 'object' } }, hasMore: { type: 'boolean' } },
              },
            },
          },
        },
        400: error('Validation failed (before not a positive integer, limit outside 1-100)'),
        401: error('Authentication required'),
        403: error('You must be a participant of this event'),
        404: error('Event not found / Chat room not found'),
      },
    },
  },
};

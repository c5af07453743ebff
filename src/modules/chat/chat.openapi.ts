import { array, bool, json, obj, operation, ref } from '../../docs/openapi-helpers.js';
import { eventMessagesInput } from './chat.schemas.js';

/** OpenAPI paths of this feature (merged by src/docs/openapi.ts). */
export const chatOpenApi: Record<string, unknown> = {
  '/events/{slug}/messages': {
    get: operation('get', {
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
        '(ack `{ success: false, error }` or `error_message`), in order: content rules (1-2000 characters after trim),',
        '"Join an event room first", "You are sending messages too fast" (per user, 5 messages/s, bursts of 10),',
        '"Email verification required", "You must be a participant of this event" (re-checked on every send).',
      ].join(' '),
      access: 'user',
      parameters: eventMessagesInput.openapi.parameters,
      ok: { '200': json(obj({ success: { const: true }, data: array(ref('Message')), hasMore: bool })) },
      errors: { 400: ['VALIDATION_ERROR'], 403: ['NOT_PARTICIPANT'], 404: ['EVENT_NOT_FOUND', 'CHAT_ROOM_NOT_FOUND'] },
    }),
  },
};

import {
  array,
  dataOf,
  dateTime,
  int,
  json,
  listOf,
  messageOnly,
  nullDateTime,
  nullStr,
  obj,
  operation,
  ref,
  str,
} from '../../docs/openapi-helpers.js';

import { checkinInput, createEventInput, qrInput, slugInput, updateEventInput } from './events.schemas.js';

/** OpenAPI paths of this feature (merged by src/docs/openapi.ts); inputs and views come from their declarations. */
export const eventsOpenApi: Record<string, unknown> = {
  '/events': {
    get: operation('get', {
      tags: ['events'],
      summary: 'Event summaries: events the caller joined first, then by startDate ascending (no paging)',
      access: 'user',
      ok: { '200': json(listOf(ref('EventSummary'))) },
    }),
  },
  '/events/{slug}': {
    get: operation('get', {
      tags: ['events'],
      summary: 'Public view of an event',
      description:
        'Every event field, `chatRooms` (the event group room only, never private rooms) and `_count.matches`. No token needed.',
      access: 'public',
      parameters: slugInput.openapi.parameters,
      ok: { '200': json(dataOf(ref('PublicEvent'))) },
      errors: { 404: ['EVENT_NOT_FOUND'] },
    }),
  },
  '/events/{slug}/details': {
    get: operation('get', {
      tags: ['events'],
      summary: 'Event details, participants (newest join first) and, for admins and participants, the check-in block',
      description: [
        '`checkin: { token, url, validFrom, validUntil }` is given to admins and participants of the event only;',
        'other authenticated callers get `checkin: null` (the QR code is meant to be shown at the venue; handing the',
        'token to any account would allow remote check-in). The token is created on the first such request and reused.',
        '`url` = FRONTEND_URL + `/events/checkin/<token>`; validFrom = startDate − 1 day; validUntil = endDate + 1 day.',
      ].join(' '),
      access: 'user',
      parameters: slugInput.openapi.parameters,
      ok: {
        '200': json(
          dataOf(
            obj({
              event: obj({
                id: int,
                slug: str,
                name: str,
                location: str,
                startDate: dateTime,
                endDate: dateTime,
                description: nullStr,
                registrationDeadline: nullDateTime,
                matchingRunAt: nullDateTime,
              }),
              checkin: {
                oneOf: [
                  obj({
                    token: str,
                    url: { type: 'string', format: 'uri' },
                    validFrom: dateTime,
                    validUntil: dateTime,
                  }),
                  { type: 'null' },
                ],
              },
              participants: array(ref('EventParticipant')),
              stats: obj({ totalParticipants: int }),
            }),
          ),
        ),
      },
      errors: { 404: ['EVENT_NOT_FOUND'] },
    }),
  },
  '/events/{slug}/checkin-qr': {
    get: operation('get', {
      tags: ['events'],
      summary: 'The check-in URL as a QR code image (admins and participants)',
      access: 'user',
      parameters: qrInput.openapi.parameters,
      ok: {
        '200': {
          description: 'image/png (512 px) or image/svg+xml; Cache-Control: private, no-store',
          content: {
            'image/png': { schema: { type: 'string', contentMediaType: 'image/png' } },
            'image/svg+xml': { schema: { type: 'string', contentMediaType: 'image/svg+xml' } },
          },
        },
      },
      errors: { 400: ['VALIDATION_ERROR'], 403: ['CHECKIN_QR_FORBIDDEN'], 404: ['EVENT_NOT_FOUND'] },
    }),
  },
  '/events/checkin/{token}': {
    post: operation('post', {
      tags: ['events'],
      summary: 'Check in with the token of the QR code (idempotent)',
      description: [
        'A new participation and participantsCount + 1 are written in one transaction (unique userId+eventId decides',
        'concurrent requests); a caller already participating gets `alreadyCheckedIn: true` and nothing changes.',
        'The event chat room is created at the first check-in if missing.',
        'Only with NODE_ENV=production, a request outside [validFrom, validUntil] gives 400.',
      ].join(' '),
      access: 'user',
      parameters: checkinInput.openapi.parameters,
      ok: {
        '200': json(
          dataOf(obj({ alreadyCheckedIn: { type: 'boolean' }, event: ref('EventBrief'), joinedAt: dateTime })),
        ),
      },
      errors: { 400: ['CHECKIN_NOT_AVAILABLE'], 404: ['INVALID_CHECKIN_TOKEN'] },
    }),
  },
  '/events/{slug}/leave': {
    delete: operation('delete', {
      tags: ['events'],
      summary:
        "Leave an event: the participation and the caller's heats go, participantsCount − 1 (one transaction); the caller's sockets leave the event room",
      access: 'user',
      parameters: slugInput.openapi.parameters,
      ok: { '200': json(messageOnly('You have left the event')) },
      errors: { 400: ['NOT_JOINED'], 404: ['EVENT_NOT_FOUND'] },
    }),
  },
  '/admin/events': {
    post: operation('post', {
      tags: ['admin', 'events'],
      summary: 'Create an event (admin); the slug is random alphanumeric (16 characters)',
      access: 'admin',
      body: createEventInput.openapi.body,
      ok: { '201': json(dataOf(ref('Event')), 'Created: data is the event') },
      errors: { 400: ['VALIDATION_ERROR'] },
    }),
  },
  '/admin/events/{slug}': {
    patch: operation('patch', {
      tags: ['admin', 'events'],
      summary: 'Update an event (admin): any of the fields; null or "" clears worldRegistryId / description',
      description:
        'endDate must not be before startDate after merging with the stored dates (400). Other fields are ignored.',
      access: 'admin',
      parameters: updateEventInput.openapi.parameters,
      body: updateEventInput.openapi.body,
      ok: { '200': json(dataOf(ref('Event'))) },
      errors: { 400: ['VALIDATION_ERROR'], 404: ['EVENT_NOT_FOUND'] },
    }),
  },
};

import {
  array,
  bool,
  dataOf,
  dateTime,
  int,
  json,
  messageAndData,
  nullInt,
  nullStr,
  obj,
  operation,
  ref,
  str,
  suggestionProperties,
  type Schema,
} from '../../docs/openapi-helpers.js';

import { adminDeleteUserInput, deleteAccountInput } from './privacy.schemas.js';

/** OpenAPI paths of this feature (merged by src/docs/openapi.ts); the behaviour is described in docs/privacy.md. */

const eventRef = ref('EventRef');
const ratingFields = {
  id: int,
  score: { type: 'integer', minimum: 1, maximum: 5 },
  comment: nullStr,
  wouldCollaborateAgain: { type: ['boolean', 'null'] },
  createdAt: dateTime,
  event: eventRef,
};
/** The suggestion object of match-suggestions plus its event (the same properties as schema Suggestion). */
const suggestionWithEvent = obj({ ...suggestionProperties, event: eventRef });

/** Components of the export, each a known schema plus its event where it has one. */
const exportData = obj({
  exportedAt: dateTime,
  user: ref('User'),
  participations: array(
    obj({
      event: obj({ id: int, slug: str, name: str, location: str, startDate: dateTime, endDate: dateTime }),
      joinedAt: dateTime,
      competitorNumber: nullStr,
      recorderOptOut: bool,
    }),
  ),
  heats: array(obj({ ...heatExportProperties(), event: eventRef })),
  messages: array(
    obj({
      id: int,
      room: obj({
        id: int,
        type: { enum: ['event', 'private'] },
        event: {
          oneOf: [eventRef, { type: 'null' }],
          description: 'the event of the room, or of the match of a private room',
        },
        matchSlug: { ...nullStr, description: 'null for an event room' },
      }),
      content: str,
      createdAt: dateTime,
    }),
  ),
  matches: array(ref('Match')),
  ratingsGiven: array(obj({ ...ratingFields, rated: ref('UserBrief') })),
  ratingsReceived: array(obj({ ...ratingFields, rater: { oneOf: [ref('UserBrief'), ref('DeletedUserBrief')] } })),
  suggestions: obj({ asDancer: array(suggestionWithEvent), asRecorder: array(suggestionWithEvent) }),
  transfers: array(ref('Transfer')),
  activity: array(
    obj({
      id: int,
      createdAt: dateTime,
      category: { enum: ['auth', 'event', 'match', 'admin', 'chat'] },
      action: str,
      success: bool,
      ip: { ...nullStr, description: 'null once older than ACTIVITY_LOG_IP_RETENTION_DAYS' },
      method: nullStr,
      path: nullStr,
      resource: nullStr,
    }),
  ),
});

/** The heat object of heats/me (schema HeatWithNumber) with its event. */
function heatExportProperties(): Record<string, Schema> {
  return {
    id: int,
    divisionId: int,
    division: ref('Reference'),
    competitionTypeId: int,
    competitionType: ref('Reference'),
    heatNumber: { type: 'integer', minimum: 1, maximum: 9 },
    role: { enum: ['Leader', 'Follower', null] },
    competitorNumber: nullStr,
  };
}

const deletionEffects = [
  'In one transaction (a failure changes nothing): the account row goes, so every token of the user answers 401 INVALID_TOKEN and the',
  "user's sockets are disconnected at once; the e-mail and the username are free again. Participations and heats go (each event's",
  'participantsCount drops by one); matches of any status go with their private rooms, messages and transfer records (each partner gets',
  '`match_cancelled` from the placeholder `deleted-user`); event-room messages stay as `{ userId: null, username: "deleted-user", avatar:',
  'null, content: "[deleted]" }`; ratings the user gave stay and still count, with the placeholder as rater and comment null; ratings',
  'received go. Recording suggestions the user records: pending and accepted ones become `not_found` with `unfilledReason:',
  '"RECORDER_DELETED"` (no recorder, not pinned, why null); rejected, removed and cancelled ones go. Activity-log entries of the user stay',
  'with userId null, username "deleted-user" and ip null. Queued mails to the address are dropped; blocks go; reports keep the placeholder.',
  'Deleting an admin when no other admin would remain → 409 LAST_ADMIN (checked with the admin rows locked).',
].join(' ');

export const privacyOpenApi: Record<string, unknown> = {
  '/users/me/export': {
    get: operation('get', {
      tags: ['privacy'],
      summary: 'Download everything the service holds about me',
      description: [
        'One JSON document (`Content-Disposition: attachment; filename="<username>-export-<YYYY-MM-DD>.json"`, the UTC date of',
        '`exportedAt`). Every list is complete (no cap, no paging). Other people appear only as user summaries or briefs; no hash, token,',
        'code or counter of anyone. No verified e-mail needed. Rate limit: the e-mail tier (RATE_LIMIT_EMAIL_*) counted per user.',
        'Logged as auth/data_export.',
      ].join(' '),
      access: 'user',
      ok: { '200': json(dataOf(exportData), 'The export (an attachment)') },
      errors: { 404: ['USER_NOT_FOUND'] },
    }),
  },
  '/users/me': {
    delete: operation('delete', {
      tags: ['privacy'],
      summary: 'Delete my account (with the current password)',
      description: [
        'Needs `currentPassword`: missing → 400 VALIDATION_ERROR with a detail for currentPassword; wrong → 400 WRONG_PASSWORD (a failed',
        'login attempt: the attempt reaching LOCKOUT_MAX_ATTEMPTS answers 423, and while locked every attempt answers 423). No verified',
        `e-mail needed. ${deletionEffects} Logged as auth/account_delete with userId null, username "deleted-user" and ip null.`,
      ].join(' '),
      access: 'user',
      body: deleteAccountInput.openapi.body,
      ok: { '200': json(messageAndData(['Account deleted'])) },
      errors: { 400: ['VALIDATION_ERROR', 'WRONG_PASSWORD'], 404: ['USER_NOT_FOUND'], 409: ['LAST_ADMIN'] },
      extra: { '423': json(ref('AccountLockedError'), 'ACCOUNT_LOCKED: too many wrong current passwords (or logins)') },
    }),
  },
  '/admin/users/{username}': {
    delete: operation('delete', {
      tags: ['privacy', 'admin'],
      summary: 'Delete a user (admin)',
      description: `The username is matched regardless of case; no password. ${deletionEffects} Logged as admin/user_delete (the admin as actor, resource \`user:<deleted id>\`).`,
      access: 'admin',
      parameters: adminDeleteUserInput.openapi.parameters,
      ok: { '200': json(messageAndData(['User deleted'])) },
      errors: { 404: ['USER_NOT_FOUND'], 409: ['LAST_ADMIN'] },
    }),
  },
  '/admin/privacy': {
    get: operation('get', {
      tags: ['privacy', 'admin'],
      summary: 'Privacy settings and the last IP purge of this instance',
      description:
        'Activity-log entries older than ACTIVITY_LOG_IP_RETENTION_DAYS lose their `ip`: purged once at start (in the background) and then daily.',
      access: 'admin',
      ok: {
        '200': json(
          dataOf(
            obj({
              activityLogIpRetentionDays: { type: 'integer', minimum: 1, maximum: 3650 },
              lastIpPurgeAt: {
                type: ['string', 'null'],
                format: 'date-time',
                description: "when this instance's last purge finished; null until the start-up purge has",
              },
              lastIpPurgeCount: { ...nullInt, description: 'entries that purge cleared' },
            }),
          ),
        ),
      },
    }),
  },
};

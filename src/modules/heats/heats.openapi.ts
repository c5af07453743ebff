import {
  array,
  dataOf,
  int,
  json,
  listOf,
  messageOnly,
  nullStr,
  obj,
  operation,
  pathParam,
  ref,
  slugParam,
  str,
  type Schema,
} from '../../docs/openapi-helpers.js';

/**
 * OpenAPI paths of this feature (merged by src/docs/openapi.ts).
 * Choices made where the interface specification is silent are written into the descriptions.
 */
const scheduleConfig: Schema = {
  oneOf: [ref('ScheduleConfig'), { type: 'null' }],
  description: 'null or `{ slots: [] }`: every division is its own slot',
};
const idOrDigits: Schema = { type: ['integer', 'string'], description: 'a positive integer, or a string of digits' };

const heatsBody = obj({
  heats: array(
    obj(
      {
        divisionId: idOrDigits,
        competitionTypeId: idOrDigits,
        heatNumber: { type: ['integer', 'string'], minimum: 1, maximum: 9, description: '1-9 (a string of digits is accepted)' },
        role: { enum: ['Leader', 'Follower', null, ''], description: 'absent, null or "" mean no role' },
      },
      ['role'],
    ),
    { minItems: 1, maxItems: 100 },
  ),
});

const userHeats = obj({ userId: int, username: str, avatar: str, competitorNumber: nullStr, heats: array(ref('HeatWithNumber')) });

export const heatsOpenApi: Record<string, unknown> = {
  '/divisions': {
    get: operation('get', {
      tags: ['heats'],
      summary: 'Divisions (reference data)',
      description: 'No token needed. Ordered by id; ids are stable (seeded in a fixed order).',
      access: 'public',
      ok: { '200': json(dataOf(array(ref('Reference')))) },
    }),
  },
  '/competition-types': {
    get: operation('get', {
      tags: ['heats'],
      summary: 'Competition types (reference data)',
      description: 'No token needed. Ordered by id.',
      access: 'public',
      ok: { '200': json(dataOf(array(ref('Reference')))) },
    }),
  },
  '/events/{slug}/heats': {
    post: operation('post', {
      tags: ['heats'],
      summary: "Replace all the caller's heats at the event",
      description: [
        'Participants only. Atomic replacement: the previous heats are deleted and the submitted ones inserted in one',
        'transaction; any failure leaves the previous set untouched. Concurrent submissions of one user at one event',
        'are serialized (row lock on the participation), so the final set is exactly one submission.',
        '',
        'Check order: body validation (400) → event (404) → participation (403) → duplicates (400).',
        'Body validation answers SPEC.md\'s message as `error` (code VALIDATION_ERROR, with one `details` entry naming',
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
      access: 'user',
      parameters: [slugParam],
      body: heatsBody,
      ok: { '200': json(listOf(ref('Heat'))) },
      errors: { 400: ['VALIDATION_ERROR', 'DUPLICATE_HEAT'], 403: ['NOT_PARTICIPANT'], 404: ['EVENT_NOT_FOUND'] },
    }),
  },
  '/events/{slug}/heats/me': {
    get: operation('get', {
      tags: ['heats'],
      summary: "The caller's heats at the event",
      description:
        'Ordered by competitionTypeId, divisionId, heatNumber (then role, id). Every heat carries the caller\'s ' +
        'competitorNumber. Decided here: a non-participant gets 200 with an empty list (SPEC lists only "Bearer").',
      access: 'user',
      parameters: [slugParam],
      ok: { '200': json(listOf(ref('HeatWithNumber'))) },
      errors: { 404: ['EVENT_NOT_FOUND'] },
    }),
  },
  '/events/{slug}/heats/all': {
    get: operation('get', {
      tags: ['heats'],
      summary: 'All heats at the event, grouped per user',
      description:
        'Only users with at least one heat; `count` is the number of users. Groups are ordered by username, heats ' +
        'within a group like heats/me. competitorNumber is on each group and on each heat. Decided here: any ' +
        'authenticated user may read it, participant or not (SPEC lists only "Bearer").',
      access: 'user',
      parameters: [slugParam],
      ok: { '200': json(listOf(userHeats)) },
      errors: { 404: ['EVENT_NOT_FOUND'] },
    }),
  },
  '/events/{slug}/heats/{id}': {
    delete: operation('delete', {
      tags: ['heats'],
      summary: "Delete one of the caller's heats",
      description:
        'Check order: event 404 "Event not found" → heat 404 "Heat not found" (also for a heat of another event and ' +
        'for an id that is not a positive integer) → owner 403 "You can only delete your own heats". Answers ' +
        '`{ success: true, message: "Heat deleted successfully" }`. Decided here: also broadcasts `heats_updated` ' +
        'with the user\'s remaining heats so live lists stay in sync. Logged as `event/heat_delete`.',
      access: 'user',
      parameters: [slugParam, pathParam('id', { type: 'string' }, 'heat id (a positive integer; anything else is an unknown heat)')],
      ok: { '200': json(messageOnly('Heat deleted successfully')) },
      errors: { 403: ['NOT_HEAT_OWNER'], 404: ['EVENT_NOT_FOUND', 'HEAT_NOT_FOUND'] },
    }),
  },
  '/events/{slug}/competitor-number': {
    put: operation('put', {
      tags: ['event settings'],
      summary: "Set or clear the caller's competitor (bib) number at the event",
      description:
        'Participants only. `competitorNumber`: 1-10 ASCII letters or digits, or null to clear (a non-negative ' +
        'integer is accepted and stored as its digits). Other values → 400 "Validation failed" (details). ' +
        'Check order: validation 400 → event 404 → participation 403. Numbers are not unique per event. ' +
        'Answers `data: { competitorNumber }`. Logged as `event/competitor_number_update`.',
      access: 'user',
      parameters: [slugParam],
      body: obj({
        competitorNumber: {
          type: ['string', 'integer', 'null'],
          pattern: '^[A-Za-z0-9]{1,10}$',
          minimum: 0,
          description: '1-10 ASCII letters or digits; a non-negative integer is stored as its digits; null clears',
        },
      }),
      ok: { '200': json(dataOf(obj({ competitorNumber: nullStr }))) },
      errors: { 400: ['VALIDATION_ERROR'], 403: ['NOT_PARTICIPANT'], 404: ['EVENT_NOT_FOUND'] },
    }),
  },
  '/events/{slug}/recorder-opt-out': {
    put: operation('put', {
      tags: ['event settings'],
      summary: "Set the caller's recorder opt-out at the event",
      description:
        'Participants only. `optOut` must be a JSON boolean. Answers `data: { recorderOptOut }`. ' +
        'Check order: validation 400 → event 404 → participation 403. Logged as `event/recorder_opt_out_update`.',
      access: 'user',
      parameters: [slugParam],
      body: obj({ optOut: { type: 'boolean' } }),
      ok: { '200': json(dataOf(obj({ recorderOptOut: { type: 'boolean' } }))) },
      errors: { 400: ['VALIDATION_ERROR'], 403: ['NOT_PARTICIPANT'], 404: ['EVENT_NOT_FOUND'] },
    }),
  },
  '/events/{slug}/registration-deadline': {
    put: operation('put', {
      tags: ['event settings'],
      summary: "Set or clear the event's heat registration deadline (admin)",
      description:
        'Admin only (others 403 "Admin access required"). `registrationDeadline`: an ISO 8601 calendar date or ' +
        'date-time naming a real day (an offset is honoured; without one the value is taken as UTC), or null. Check order: 401 → 403 → validation 400 → event 404. ' +
        'Answers `data: { registrationDeadline }` (ISO string or null). Logged as `admin/registration_deadline_update`.',
      access: 'admin',
      parameters: [slugParam],
      body: obj({ registrationDeadline: { type: ['string', 'null'], description: 'ISO 8601 date or date-time, or null' } }),
      ok: { '200': json(dataOf(obj({ registrationDeadline: { type: ['string', 'null'], format: 'date-time' } }))) },
      errors: { 400: ['VALIDATION_ERROR'], 404: ['EVENT_NOT_FOUND'] },
    }),
  },
  '/events/{slug}/schedule-config': {
    put: operation('put', {
      tags: ['event settings'],
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
      access: 'admin',
      parameters: [slugParam],
      body: obj({ scheduleConfig }),
      ok: { '200': json(dataOf(obj({ scheduleConfig }))) },
      errors: { 400: ['VALIDATION_ERROR'], 404: ['EVENT_NOT_FOUND'] },
    }),
  },
};

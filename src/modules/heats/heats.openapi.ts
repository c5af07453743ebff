import { userHeatsView } from './heats.views.js';
import { array, dataOf, json, listOf, messageOnly, operation, ref } from '../../docs/openapi-helpers.js';
import { deleteHeatInput, eventHeatsInput, replaceHeatsInput } from './heats.schemas.js';

/**
 * OpenAPI paths of this feature (merged by src/docs/openapi.ts); parameters and bodies come from
 * the input declarations (heats.schemas.ts).
 * Choices made where the interface specification is silent are written into the descriptions.
 */
const userHeats = userHeatsView.schema;

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
        'Body validation answers the specified message as `error` (code VALIDATION_ERROR, with one `details` entry naming',
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
        "Answers 200 (a replacement) with the caller's heats after replacement, ordered like heats/me (without",
        'competitorNumber). After the commit, `heats_updated` { userId, username, heats } is broadcast to',
        '`event_<event id>` (in batches per room, at most 1 s later in a room of 3 000: see the socket events);',
        'a broadcast failure never fails the request. Logged as activity `event/heats_save`.',
      ].join('\n'),
      access: 'user',
      parameters: replaceHeatsInput.openapi.parameters,
      body: replaceHeatsInput.openapi.body,
      ok: { '200': json(listOf(ref('Heat'))) },
      errors: { 400: ['VALIDATION_ERROR', 'DUPLICATE_HEAT'], 403: ['NOT_PARTICIPANT'], 404: ['EVENT_NOT_FOUND'] },
    }),
  },
  '/events/{slug}/heats/me': {
    get: operation('get', {
      tags: ['heats'],
      summary: "The caller's heats at the event",
      description:
        "Ordered by competitionTypeId, divisionId, heatNumber (then role, id). Every heat carries the caller's " +
        'competitorNumber. Decided here: a non-participant gets 200 with an empty list (SPEC lists only "Bearer").',
      access: 'user',
      parameters: eventHeatsInput.openapi.parameters,
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
      parameters: eventHeatsInput.openapi.parameters,
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
        "with the user's remaining heats so live lists stay in sync. Logged as `event/heat_delete`.",
      access: 'user',
      parameters: deleteHeatInput.openapi.parameters,
      ok: { '200': json(messageOnly('Heat deleted successfully')) },
      errors: { 403: ['NOT_HEAT_OWNER'], 404: ['EVENT_NOT_FOUND', 'HEAT_NOT_FOUND'] },
    }),
  },
};

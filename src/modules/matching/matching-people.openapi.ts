import { dataOf, int, json, obj, operation, ref } from '../../docs/openapi-helpers.js';
import {
  absentInput,
  matchingPeopleEventInput,
  matchingSettingsInput,
  pinInput,
  preferencesInput,
  removeSuggestionInput,
} from './matching-people.schemas.js';
import { matchingSettingsView, recordingPreferencesView } from './matching.views.js';

/**
 * OpenAPI paths of fair matching for people (merged by src/docs/openapi.ts): settings,
 * preferences, pins and removals, no-shows. Behaviour: docs/fair-matching.md.
 */
// the answers: the views of matching.views.ts, inline (not components)
const settings = matchingSettingsView.schema;
const preferences = recordingPreferencesView.schema;

export const matchingPeopleOpenApi: Record<string, unknown> = {
  '/events/{slug}/matching-settings': {
    get: operation('get', {
      tags: ['matching'],
      summary: "The event's matching settings",
      access: 'user',
      description:
        'Participants and admins (an admin need not participate). `data: { bufferBefore, bufferAfter, maxRecordingsPerPerson, optOutMode }`; ' +
        'defaults 0, 1, 3, "last" (the original rules). Buffers: a participant who dances heat n records none of the heats n-bufferBefore … ' +
        'n+bufferAfter of that competition type and slot. optOutMode "last": opted-out participants record only when coverage needs them; ' +
        '"exclude": never. Check order: 401 → 404 EVENT_NOT_FOUND → 403 NOT_PARTICIPANT.',
      parameters: matchingPeopleEventInput.openapi.parameters,
      ok: { '200': json(dataOf(settings)) },
      errors: { 403: ['NOT_PARTICIPANT'], 404: ['EVENT_NOT_FOUND'] },
    }),
    put: operation('put', {
      tags: ['matching', 'admin'],
      summary: "Change the event's matching settings (partial)",
      access: 'admin',
      description:
        'Admin only. Body: any of the four fields (JSON integers bufferBefore/bufferAfter 0-2, maxRecordingsPerPerson 1-5; optOutMode ' +
        '"last" | "exclude"); the others keep their value; unknown fields are ignored. A wrong type or value (numeric strings, decimals, null) ' +
        'or none of the four → 400 VALIDATION_ERROR with details, nothing saved. Answers all four after the change. Applies to every later ' +
        'run. Check order: 401 → 403 → 400 → 404. Logged as `matching_settings_update` (category admin; metadata previous and next).',
      parameters: matchingSettingsInput.openapi.parameters,
      body: matchingSettingsInput.openapi.body,
      ok: { '200': json(dataOf(settings)) },
      errors: { 404: ['EVENT_NOT_FOUND'] },
    }),
  },
  '/events/{slug}/recording-preferences': {
    get: operation('get', {
      tags: ['matching'],
      summary: 'My recording preferences at the event',
      access: 'user',
      description:
        'Participants only (admins too). `data: { maxRecordings, unavailable }`, defaults `{ maxRecordings: null, unavailable: [] }`. ' +
        "maxRecordings null = the event's maxRecordingsPerPerson; 0 = never asked to record; a run uses min(maxRecordings, event max). " +
        'unavailable: heats the participant cannot record, `{ competitionTypeId, heatNumber, divisionId | null }`: without a division ' +
        'every division at that type and number, with one that division and its slot. Sorted by competitionTypeId, heatNumber, divisionId (null first).',
      parameters: matchingPeopleEventInput.openapi.parameters,
      ok: { '200': json(dataOf(preferences)) },
      errors: { 403: ['NOT_PARTICIPANT'], 404: ['EVENT_NOT_FOUND'] },
    }),
    put: operation('put', {
      tags: ['matching'],
      summary: 'Change my recording preferences (partial)',
      access: 'user',
      description:
        "Body: `maxRecordings` (null or an integer 0 … the event's maxRecordingsPerPerson) and/or `unavailable` (at most 50 entries, " +
        'replaces the list; identical entries merged). Check order: 401 → body 400 (unknown competition type or division ids included; ' +
        "details name the field, e.g. `unavailable[0].divisionId`) → 404 → 403 NOT_PARTICIPANT → maxRecordings above the event's max 400. " +
        'Nothing is saved on a 400. Logged as `recording_preferences_update` (category event).',
      parameters: preferencesInput.openapi.parameters,
      body: preferencesInput.openapi.body,
      ok: { '200': json(dataOf(preferences)) },
      errors: { 403: ['NOT_PARTICIPANT'], 404: ['EVENT_NOT_FOUND'] },
    }),
  },
  '/admin/events/{slug}/match-suggestions': {
    post: operation('post', {
      tags: ['matching', 'admin'],
      summary: 'Pin a recorder to a heat',
      access: 'admin',
      description:
        'Admin only. Body `{ heatId, recorderId }` (positive integers, else 400) → **201** the suggestion, `status: "pending"`, `pinned: true`, ' +
        "`originRunId: null`, `why.pinned: true`. It replaces the heat's pending or not_found suggestion; an existing suggestion of the pair " +
        '(pending, removed or cancelled) becomes the pinned one (same id). Check order: 401 → 403 → 400 → 404 EVENT_NOT_FOUND → 404 ' +
        "HEAT_NOT_FOUND (unknown id or another event's heat) → 409 with the first rule broken: HEAT_ALREADY_COVERED, RECORDER_IS_DANCER, " +
        'RECORDER_NOT_PARTICIPANT, RECORDER_ABSENT, RECORDER_DANCING, RECORDER_IN_BUFFER, RECORDER_UNAVAILABLE, PAIR_REJECTED, RECORDER_AT_CAP ' +
        '(accepted and pending suggestions of the recorder on other heats reach min(personal, event max)). Opt-out never blocks a pin. ' +
        'Runs keep a pin that still holds and count it toward caps (and leave its heat out of heatsTotal); one that no longer holds is dropped ' +
        'and its heat re-filled. Logged as `recording_suggestion_pin` (category admin).',
      parameters: pinInput.openapi.parameters,
      body: pinInput.openapi.body,
      bodyRequired: true,
      ok: { '201': json(dataOf(ref('Suggestion')), 'The pinned suggestion') },
      errors: {
        404: ['EVENT_NOT_FOUND', 'HEAT_NOT_FOUND'],
        409: [
          'HEAT_ALREADY_COVERED',
          'RECORDER_IS_DANCER',
          'RECORDER_NOT_PARTICIPANT',
          'RECORDER_ABSENT',
          'RECORDER_DANCING',
          'RECORDER_IN_BUFFER',
          'RECORDER_UNAVAILABLE',
          'PAIR_REJECTED',
          'RECORDER_AT_CAP',
        ],
      },
    }),
  },
  '/admin/events/{slug}/match-suggestions/{id}': {
    delete: operation('delete', {
      tags: ['matching', 'admin'],
      summary: 'Remove a pending suggestion',
      access: 'admin',
      description:
        'Admin only. A `pending` suggestion (pinned or not) becomes `removed` (kept as history); no run proposes the pair again, and the heat ' +
        'has no live suggestion until the next run re-fills it. Any other status → 409. Check order: 401 → 403 → 404 EVENT_NOT_FOUND → 404 ' +
        "SUGGESTION_NOT_FOUND (unknown or malformed id, another event's) → 409. Logged as `recording_suggestion_remove` (category admin).",
      parameters: removeSuggestionInput.openapi.parameters,
      ok: { '200': json(dataOf(ref('Suggestion')), 'The removed suggestion') },
      errors: { 404: ['EVENT_NOT_FOUND', 'SUGGESTION_NOT_FOUND'], 409: ['SUGGESTION_NOT_PENDING'] },
    }),
  },
  '/admin/events/{slug}/participants/{userId}/absent': {
    post: operation('post', {
      tags: ['matching', 'admin'],
      summary: 'Mark a participant absent (no-show)',
      access: 'admin',
      description:
        "Admin only. The participant's pending (pinned included) and accepted suggestions as recorder at the event become `cancelled` " +
        '(a match created by accepting stays) → `data: { userId, absent: true, cancelledSuggestions }`; again → 0. An absent participant ' +
        'never records in later runs (and cannot be pinned); his/her own heats are still matched; the next run re-fills the cancelled heats ' +
        'and keeps every other still-valid pending suggestion. Check order: 401 → 403 → 400 (userId) → 404 EVENT_NOT_FOUND → 404 ' +
        'PARTICIPANT_NOT_FOUND. Logged as `participant_absent` (category admin).',
      parameters: absentInput.openapi.parameters,
      ok: { '200': json(dataOf(obj({ userId: int, absent: { const: true }, cancelledSuggestions: int }))) },
      errors: { 404: ['EVENT_NOT_FOUND', 'PARTICIPANT_NOT_FOUND'] },
    }),
    delete: operation('delete', {
      tags: ['matching', 'admin'],
      summary: 'Clear the absent mark',
      access: 'admin',
      description:
        'Admin only. → `data: { userId, absent: false }` (also when not marked); later runs may use the participant again. Cancelled ' +
        'suggestions stay cancelled, their pairs are not forbidden (a run that proposes one again turns it back into pending, same id). ' +
        'Check order as for POST. Logged as `participant_absent_cleared` (category admin).',
      parameters: absentInput.openapi.parameters,
      ok: { '200': json(dataOf(obj({ userId: int, absent: { const: false } }))) },
      errors: { 404: ['EVENT_NOT_FOUND', 'PARTICIPANT_NOT_FOUND'] },
    }),
  },
};

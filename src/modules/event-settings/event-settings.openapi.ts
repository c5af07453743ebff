import { dataOf, json, nullStr, obj, operation, ref, type Schema } from '../../docs/openapi-helpers.js';
import {
  competitorNumberInput,
  recorderOptOutInput,
  registrationDeadlineInput,
  scheduleConfigInput,
} from './event-settings.schemas.js';

const scheduleConfig: Schema = {
  oneOf: [ref('ScheduleConfig'), { type: 'null' }],
  description: 'null or `{ slots: [] }`: every division is its own slot',
};

/**
 * OpenAPI paths of the per-event settings (merged by src/docs/openapi.ts). Choices made where
 * the interface specification is silent are written into the descriptions.
 */
export const eventSettingsOpenApi: Record<string, unknown> = {
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
      parameters: competitorNumberInput.openapi.parameters,
      body: competitorNumberInput.openapi.body,
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
      parameters: recorderOptOutInput.openapi.parameters,
      body: recorderOptOutInput.openapi.body,
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
        'date-time naming a real day (an offset is honoured; without one the value is taken as UTC) between 1900-01-01 and 9999-12-31 UTC, or null. Check order: 401 → 403 → validation 400 → event 404. ' +
        'Answers `data: { registrationDeadline }` (ISO string or null). Logged as `admin/registration_deadline_update`.',
      access: 'admin',
      parameters: registrationDeadlineInput.openapi.parameters,
      body: registrationDeadlineInput.openapi.body,
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
      parameters: scheduleConfigInput.openapi.parameters,
      body: scheduleConfigInput.openapi.body,
      ok: { '200': json(dataOf(obj({ scheduleConfig }))) },
      errors: { 400: ['VALIDATION_ERROR'], 404: ['EVENT_NOT_FOUND'] },
    }),
  },
};

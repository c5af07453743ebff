/**
 * OpenAPI paths of recording-partner matching (merged by src/docs/openapi.ts). The rules of
 * a run are described in the README ("Recording-partner matching") and below.
 */
const bearer = [{ bearer: [] }];

const slugParam = { name: 'slug', in: 'path', required: true, description: 'Event slug', schema: { type: 'string' } };
const runIdParam = { name: 'runId', in: 'path', required: true, description: 'Matching run id (UUID)', schema: { type: 'string', format: 'uuid' } };
const suggestionIdParam = {
  name: 'id',
  in: 'path',
  required: true,
  description: 'Suggestion id (a value that is not a positive whole number is answered 404 "Suggestion not found")',
  schema: { type: 'string' },
};

const run =
  'Run object `{ id (UUID), eventId, trigger: "manual" | "scheduled", status: "running" | "success" | "failed", startedAt, finishedAt, ' +
  'heatsTotal, heatsAssigned, heatsUnassigned, error }`. heatsTotal = heats that needed a recorder in this run (the event\'s heats minus ' +
  'those with an accepted suggestion) = heatsAssigned + heatsUnassigned.';

const suggestion =
  'Suggestion object `{ id, heat: { id, divisionId, division: { id, name, abbreviation }, competitionTypeId, competitionType, heatNumber, role }, ' +
  'dancer: <user summary>, recorder: <user summary> | null, status: "pending" | "accepted" | "rejected" | "not_found", originRunId, createdAt }`.';

const runNow = {
  tags: ['matching'],
  security: bearer,
  parameters: [slugParam],
  description:
    'Admin only. Runs matching now (trigger "manual") and answers **201** with the finished run. ' +
    'Runs of one event never overlap (PostgreSQL advisory lock per event, shared with the scheduled run): while another run of ' +
    'the event is in progress (or for the instant a suggestion decision of the event is being written) the request is refused with **409** "A matching run is already in progress for this event" (it does ' +
    'not queue) and no run is recorded. A run keeps `accepted` suggestions (they count toward the cap of 3), never re-proposes a ' +
    '`rejected` (heat, recorder) pair, and replaces the `pending` and `not_found` ones in one transaction; every heat that needed ' +
    'a recorder gets a `pending` suggestion or a `not_found` one (recorder null). A run that fails is kept with status "failed" ' +
    'and its `error` text and is also answered with 201 (the previous suggestions stay untouched). After a successful run each ' +
    'affected user gets `recording_suggestions_created` on `user_<id>`. ' + run,
  responses: {
    '201': { description: 'The finished run' },
    '401': { description: 'No or invalid token' },
    '403': { description: '"Admin access required"' },
    '404': { description: '"Event not found"' },
    '409': { description: '"A matching run is already in progress for this event"' },
  },
};

export const matchingOpenApi: Record<string, unknown> = {
  '/events/{slug}/run-matching': { post: { ...runNow, summary: 'Run recording-partner matching now' } },
  '/events/{slug}/match-suggestions': {
    get: {
      tags: ['matching'],
      summary: 'Who records my heats, which heats I record',
      security: bearer,
      parameters: [slugParam],
      description:
        'Participants only (403 "You must be a participant of this event"; unknown event 404 first). ' +
        '`data: { toBeRecorded, toRecord, registrationDeadline, matchingRunAt }`: toBeRecorded = suggestions for the caller\'s heats, ' +
        'toRecord = suggestions where the caller is the recorder; every status is listed (rejected ones included, so the history ' +
        'is visible), ordered like heats/me (competition type, division, heat number), then id. ' + suggestion,
      responses: { '200': { description: 'The two lists' }, '403': { description: 'Not a participant' }, '404': { description: 'Event not found' } },
    },
  },
  '/events/{slug}/match-suggestions/{id}/status': {
    put: {
      tags: ['matching'],
      summary: 'Accept or reject a recording suggestion (the recorder only)',
      security: bearer,
      parameters: [slugParam, suggestionIdParam],
      description:
        'Body `{ status: "accepted" | "rejected" }` (else 400 "Validation failed" with details). Check order: body 400, event 404, ' +
        'participant 403 "You must be a participant of this event", suggestion 404 "Suggestion not found" (unknown id, non-numeric id, or a suggestion of another event), 403 "Only the recorder ' +
        'can accept or reject this suggestion" (dancer, anyone else, admins included). Transitions: `pending` → `accepted` | `rejected`; ' +
        'sending the current status again is a no-op answered 200; any other change → 409 "Only a pending suggestion can be accepted ' +
        'or rejected". Accepting creates (or reuses) the accepted match of dancer and recorder at the event with its private chat ' +
        'room: a new match has `source: "auto"`, is linked to the suggestion, the dancer is `user1`; an existing pending match of the ' +
        'pair is accepted and gets its room; the dancer receives `match_accepted` when a match became accepted. Answers 200 with the ' +
        'suggestion object plus `match: { id, slug, status, roomId } | null`. Logged as `recording_suggestion_accept` / ' +
        '`recording_suggestion_reject` (category match). A decision waits for a matching run of the event in progress. ' + suggestion,
      responses: {
        '200': { description: 'The updated suggestion' },
        '400': { description: 'Validation failed' },
        '403': { description: 'Not the recorder' },
        '404': { description: 'Event or suggestion not found' },
        '409': { description: 'Not pending any more' },
      },
    },
  },
  '/admin/events/{slug}/matching-runs': {
    get: {
      tags: ['matching', 'admin'],
      summary: 'Matching runs of an event, newest first',
      security: bearer,
      parameters: [slugParam],
      description: 'Admin only. `data`: runs newest first, `count`. ' + run,
      responses: { '200': { description: 'Runs' }, '403': { description: '"Admin access required"' }, '404': { description: '"Event not found"' } },
    },
    post: { ...runNow, tags: ['matching', 'admin'], summary: 'Run matching now (same as POST /events/{slug}/run-matching)' },
  },
  '/admin/events/{slug}/matching-runs/{runId}/suggestions': {
    get: {
      tags: ['matching', 'admin'],
      summary: 'The pairs a run created',
      security: bearer,
      parameters: [slugParam, runIdParam],
      description:
        'Admin only. The suggestions whose originRunId is the run and that still exist (a later run replaces pending and not_found ' +
        'suggestions; accepted and rejected ones stay with their origin run), with dancer, recorder, heat and status, in heats/me order. ' +
        'Unknown run id, a non-UUID id or a run of another event → 404 "Matching run not found". ' + suggestion,
      responses: { '200': { description: 'Suggestions' }, '403': { description: '"Admin access required"' }, '404': { description: 'Event or run not found' } },
    },
  },
};

import {
  array,
  dataOf,
  json,
  listOf,
  nullDateTime,
  obj,
  operation,
  ref,
  type OperationSpec,
} from '../../docs/openapi-helpers.js';
import { decisionInput, eventInput, runInput, runRequestInput } from './matching.schemas.js';

/**
 * OpenAPI paths of recording-partner matching (merged by src/docs/openapi.ts). The rules of
 * a run are described in the docs/api.md ("Recording-partner matching") and below.
 */
const reasons =
  'Unfilled reasons (the first that applies): `NO_OTHER_PARTICIPANT` nobody else takes part in the event; ' +
  '`ALL_CANDIDATES_DANCING` every other participant dances this heat or the one right before it in the same division; ' +
  '`SLOT_CONFLICT` every other participant is busy, some only because the schedule puts another division in the same slot; ' +
  '`ALL_CANDIDATES_REJECTED` every free participant has rejected recording this heat; `ONLY_OPTED_OUT_AT_CAP` the free ' +
  'participants left all opted out of recording and already record the maximum (3); `ALL_CANDIDATES_AT_CAP` the free ' +
  'participants left all already record the maximum (3, accepted recordings included).';

const reuse =
  '`reuse: { previous, kept, added, dropped, invalid } | null` (null for runs made before stable re-runs and for failed runs): ' +
  'previous = pending suggestions the run started from; kept = those still proposed (the same rows: id, originRunId and createdAt ' +
  'unchanged); dropped = still possible but given up to reach a better plan (more heats covered, fewer opt-outs used, closer ' +
  'recorders, a more even load — in that order); invalid = no longer possible (heat or recorder changed, rejected, cap); ' +
  'added = new pairs. A re-run changes as few pairs as an optimal plan allows.';

const run =
  'Run object `{ id (UUID), eventId, trigger: "manual" | "scheduled", status: "running" | "success" | "failed", startedAt, finishedAt, ' +
  'heatsTotal, heatsAssigned, heatsUnassigned, error, reuse, unfilledByReason }`. heatsTotal = heats that needed a recorder in this ' +
  "run (the event's heats minus those with an accepted suggestion) = heatsAssigned + heatsUnassigned. `unfilledByReason`: the number " +
  'of heats the run left without a recorder, per reason (all seven reasons, zeros included). ' +
  reuse;

const unfilledHeats =
  '`unfilledHeats: [{ heatId, reason, heat | null, dancer: <user summary> | null }]` in heat id order (heat and dancer are null once ' +
  'the heat was deleted). ' +
  reasons;

const suggestion =
  'Suggestion object `{ id, heat: { id, divisionId, division: { id, name, abbreviation }, competitionTypeId, competitionType, heatNumber, role }, ' +
  'dancer: <user summary>, recorder: <user summary> | null, status: "pending" | "accepted" | "rejected" | "not_found", unfilledReason, ' +
  'originRunId, createdAt }`. `unfilledReason` is set on `not_found` suggestions (why the heat has no recorder; null on not_found ' +
  'rows written before reasons were stored) and null otherwise. originRunId = the run that proposed the pair (a re-run that keeps ' +
  'it does not change it).';

const runNow = (summary: string, tags: string[]): OperationSpec => ({
  tags,
  summary,
  access: 'admin',
  description:
    'Admin only. Runs matching now (trigger "manual") and answers **201** with the finished run. ' +
    'Runs of one event never overlap (PostgreSQL advisory lock per event, shared with the scheduled run): while another run of ' +
    'the event is in progress (or for the instant a suggestion decision of the event is being written) the request is refused with **409** "A matching run is already in progress for this event" (it does ' +
    'not queue) and no run is recorded. A run keeps `accepted` suggestions (they count toward the cap of 3), never re-proposes a ' +
    '`rejected` (heat, recorder) pair, keeps every still-possible `pending` suggestion unless dropping it is needed for a better plan, and ' +
    'replaces the other `pending` ones and every `not_found` one in one transaction; every heat that needed a recorder ends with a ' +
    '`pending` suggestion or a `not_found` one (recorder null, `unfilledReason` set). A run that fails is kept with status "failed" ' +
    'and its `error` text and is also answered with 201 (the previous suggestions stay untouched). After a successful run, right after ' +
    'this answer is sent, each affected user gets `recording_suggestions_created` on `user_<id>`. Logged as `matching_run` / `matching_run_failed` (category admin). ' +
    '**Dry run**: body `{ "dryRun": true }` answers **200** with what a run would do now — `{ dryRun: true, heatsTotal, heatsAssigned, ' +
    'heatsUnassigned, reuse, pins: { kept, dropped }, unfilledByReason, unfilledHeats }` — and writes nothing: no suggestion, no run row, no notification, ' +
    '`matchingRunAt` unchanged. It takes no lock and is logged as `matching_dry_run`. `dryRun` other than true/false → 400. ' +
    run +
    ' ' +
    unfilledHeats,
  parameters: runRequestInput.openapi.parameters,
  body: runRequestInput.openapi.body,
  ok: {
    '200': json(dataOf(ref('RunPreview')), 'Dry run: what a run would do now (nothing written)'),
    '201': json(dataOf(ref('Run')), 'The finished run (also a failed one)'),
  },
  errors: { 400: ['VALIDATION_ERROR'], 404: ['EVENT_NOT_FOUND'], 409: ['MATCHING_RUN_IN_PROGRESS'] },
});

export const matchingOpenApi: Record<string, unknown> = {
  '/events/{slug}/run-matching': {
    post: operation('post', runNow('Run recording-partner matching now', ['matching'])),
  },
  '/events/{slug}/match-suggestions': {
    get: operation('get', {
      tags: ['matching'],
      summary: 'Who records my heats, which heats I record',
      access: 'user',
      description:
        'Participants only (403 "You must be a participant of this event"; unknown event 404 first). ' +
        "`data: { toBeRecorded, toRecord, registrationDeadline, matchingRunAt }`: toBeRecorded = suggestions for the caller's heats, " +
        'toRecord = suggestions where the caller is the recorder; every status is listed (rejected ones included, so the history ' +
        'is visible), ordered like heats/me (competition type, division, heat number), then id. ' +
        suggestion,
      parameters: eventInput.openapi.parameters,
      ok: {
        '200': json(
          dataOf(
            obj({
              toBeRecorded: array(ref('Suggestion')),
              toRecord: array(ref('Suggestion')),
              registrationDeadline: nullDateTime,
              matchingRunAt: nullDateTime,
            }),
          ),
        ),
      },
      errors: { 403: ['NOT_PARTICIPANT'], 404: ['EVENT_NOT_FOUND'] },
    }),
  },
  '/events/{slug}/match-suggestions/{id}/status': {
    put: operation('put', {
      tags: ['matching'],
      summary: 'Accept (the recorder) or reject (the recorder or the dancer) a recording suggestion',
      access: 'user',
      description:
        'Body `{ status: "accepted" | "rejected" }` (else 400 "Validation failed" with details). Check order: body 400, accepting without a verified e-mail 403 "Email verification required" (as POST /matches; rejecting needs none), event 404, ' +
        'participant 403 "You must be a participant of this event", suggestion 404 "Suggestion not found" (unknown id, non-numeric id, or a suggestion of another event), 403 "Only the recorder ' +
        'can accept or reject this suggestion" (accepting: anyone but the recorder; rejecting: anyone but the recorder and the dancer; admins included), ' +
        'accepting a suggestion between a blocked pair 403 USER_BLOCKED (it stays pending). A rejected (heat, recorder) pair is never proposed again, whoever rejected it. Transitions: `pending` → `accepted` | `rejected`; ' +
        'sending the current status again is a no-op answered 200; any other change → 409 "Only a pending suggestion can be accepted ' +
        'or rejected". Accepting creates (or reuses) the accepted match of dancer and recorder at the event with its private chat ' +
        'room: a new match has `source: "auto"`, is linked to the suggestion, the dancer is `user1`; an existing pending match of the ' +
        'pair is accepted and gets its room; the dancer receives `match_accepted` when a match became accepted. Answers 200 with the ' +
        'suggestion object plus `match: { id, slug, status, roomId } | null`. Logged as `recording_suggestion_accept` / ' +
        '`recording_suggestion_reject` (category match). A decision waits for a matching run of the event in progress. ' +
        suggestion,
      parameters: decisionInput.openapi.parameters,
      body: decisionInput.openapi.body,
      ok: { '200': json(dataOf(ref('SuggestionDecision')), 'The suggestion and the accepted match (or null)') },
      errors: {
        400: ['VALIDATION_ERROR'],
        403: ['EMAIL_NOT_VERIFIED', 'NOT_PARTICIPANT', 'NOT_RECORDER', 'USER_BLOCKED'],
        404: ['EVENT_NOT_FOUND', 'SUGGESTION_NOT_FOUND'],
        409: ['SUGGESTION_NOT_PENDING'],
      },
    }),
  },
  '/admin/events/{slug}/matching-runs': {
    get: operation('get', {
      tags: ['matching', 'admin'],
      summary: 'Matching runs of an event, newest first',
      access: 'admin',
      description: 'Admin only. `data`: runs newest first, `count`. ' + run + ' ' + reasons,
      parameters: eventInput.openapi.parameters,
      ok: { '200': json(listOf(ref('Run'))) },
      errors: { 404: ['EVENT_NOT_FOUND'] },
    }),
    post: operation(
      'post',
      runNow('Run matching now (same as POST /events/{slug}/run-matching)', ['matching', 'admin']),
    ),
  },
  '/admin/events/{slug}/matching-runs/{runId}/suggestions': {
    get: operation('get', {
      tags: ['matching', 'admin'],
      summary: 'The pairs a run created',
      access: 'admin',
      description:
        'Admin only. The suggestions whose originRunId is the run and that still exist (a later run keeps the pending ones it can and ' +
        'replaces the others and every not_found one; kept, accepted and rejected suggestions stay with the run that proposed them), ' +
        'with dancer, recorder, heat and status, in heats/me order. ' +
        'Unknown run id, a non-UUID id or a run of another event → 404 "Matching run not found". ' +
        suggestion,
      parameters: runInput.openapi.parameters,
      ok: { '200': json(listOf(ref('Suggestion'))) },
      errors: { 404: ['EVENT_NOT_FOUND', 'MATCHING_RUN_NOT_FOUND'] },
    }),
  },
  '/admin/events/{slug}/matching-runs/{runId}': {
    get: operation('get', {
      tags: ['matching', 'admin'],
      summary: 'One run with the heats it left without a recorder',
      access: 'admin',
      description:
        'Admin only. The run object plus ' +
        unfilledHeats +
        ' The reasons are stored with the run, so an older run still explains ' +
        'its gaps after a later run filled them. Unknown run id, a non-UUID id or a run of another event → 404 "Matching run not found". ' +
        run,
      parameters: runInput.openapi.parameters,
      ok: { '200': json(dataOf(ref('RunDetail'))) },
      errors: { 404: ['EVENT_NOT_FOUND', 'MATCHING_RUN_NOT_FOUND'] },
    }),
  },
  '/admin/events/{slug}/matching-runs/{runId}/export.csv': {
    get: operation('get', {
      tags: ['matching', 'admin'],
      summary: 'The plan of the latest run as CSV (organisers)',
      access: 'admin',
      description:
        'Admin only. Streams the plan as it stands now — every heat with its `pending`, `accepted` or `not_found` suggestion (rejected ' +
        'pairs are history and left out), in heats/me order — as RFC 4180 CSV: UTF-8 with a byte order mark, CRLF line ends, a header ' +
        'line `"Heat","Dancer","Recorder","Status","Locality","Opt-out used","Pinned","Recorder balance"`, every field quoted (quotes doubled); a control ' +
        'character in a value (CR, LF, TAB …) is written as a space, and a cell starting with =, +, -, @, TAB or CR gets a leading `\'`. Heat = "<competition type> <division> heat <number> (<role>)"; Dancer/Recorder = "First Last (username)" or the ' +
        'username; Status = the suggestion status; Locality = `same city`, `same country` or `elsewhere` (trimmed, case-insensitive; ' +
        "unknown never matches); Opt-out used = `yes` when the recorder opted out of recording, else `no`; Pinned = `yes` for an admin pin, else `no`; Recorder balance = the recorder's balance written with the suggestion (`why.recorderBalance`, empty on older rows); the recorder cells are empty " +
        "for a `not_found` heat. A cell starting with =, +, - or @ is prefixed with ' so spreadsheet programs never run it as a formula. " +
        '`Content-Disposition: attachment; filename=matching-<slug>-<runId>.csv`. Only the latest successful run has a current plan: ' +
        'an older or failed run → **409**. Unknown, non-UUID or other-event run id → 404 "Matching run not found". ' +
        'Logged as `matching_run_export` (category admin).',
      parameters: runInput.openapi.parameters,
      ok: { '200': { description: 'The CSV file', content: { 'text/csv': { schema: { type: 'string' } } } } },
      errors: { 404: ['EVENT_NOT_FOUND', 'MATCHING_RUN_NOT_FOUND'], 409: ['MATCHING_RUN_NOT_CURRENT'] },
    }),
  },
};

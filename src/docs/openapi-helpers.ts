import { eventObjectView, scheduleConfigSchema } from '../modules/events/events.views.js';
import { heatView } from '../modules/heats/heats.views.js';
import { UNFILLED_REASONS } from '../modules/matching/matching.unfilled.js';
import { RECORDER_DELETED, runView, suggestionView } from '../modules/matching/matching.views.js';
import { ErrorCatalogue, type ErrorCode } from '../lib/errors.js';

/**
 * Shared pieces of the OpenAPI document: the envelope, the error catalogue, the resource
 * schemas and an `operation()` builder that adds the answers every operation can give
 * (401 without a token, 403 CSRF on state changes, 400/413/415 on bodies, 429, 500, 503).
 *
 * Every object schema is closed (`additionalProperties: false`): an unexpected field in a
 * response (say, an e-mail in a public profile) fails the contract check of the test suite.
 */

export type Schema = Record<string, unknown>;

// ------------------------------------------------------------------------------ error catalogue

/**
 * The `code` of an error body is one of the catalogue's codes (src/lib/errors.ts), each with
 * one status. Where a rule answers with a more precise message than the catalogue's default,
 * the document shows that message.
 */
const preciseMessages: Partial<Record<ErrorCode, string>> = {
  VALIDATION_ERROR: 'Validation failed (or the broken rule\'s own message) + details',
  ACCOUNT_LOCKED: 'Account is locked. Try again in N minute(s).',
  TOO_MANY_PENDING_MATCHES: 'You can have at most 20 pending match requests',
  BAD_REQUEST: 'Bad request (e.g. a path that is not valid percent-encoding)',
};
const messageOf = (code: ErrorCode) => preciseMessages[code] ?? ErrorCatalogue[code].message;

export type { ErrorCode };

// ------------------------------------------------------------------------------ schema atoms

export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });

/** A closed object; every property is required unless listed in `optional`. */
export function obj(properties: Record<string, Schema>, optional: string[] = []): Schema {
  return {
    type: 'object',
    additionalProperties: false,
    required: Object.keys(properties).filter((k) => !optional.includes(k)),
    properties,
  };
}

export const int: Schema = { type: 'integer' };
export const str: Schema = { type: 'string' };
export const bool: Schema = { type: 'boolean' };
export const num: Schema = { type: 'number' };
export const dateTime: Schema = { type: 'string', format: 'date-time' };
export const nullable = (schema: Schema): Schema => {
  const type = schema.type;
  if (typeof type === 'string') return { ...schema, type: [type, 'null'] };
  return { oneOf: [schema, { type: 'null' }] };
};
export const nullStr: Schema = { type: ['string', 'null'] };
export const nullInt: Schema = { type: ['integer', 'null'] };
export const nullDateTime: Schema = { type: ['string', 'null'], format: 'date-time' };
export const array = (items: Schema, extra: Schema = {}): Schema => ({ type: 'array', items, ...extra });

// ------------------------------------------------------------------------------ envelopes

const success = { const: true };

/** `{ success: true, data }` */
export const dataOf = (data: Schema): Schema => obj({ success, data });
/** `{ success: true, count, data: [...] }` plus extra top-level fields */
export const listOf = (items: Schema, extra: Record<string, Schema> = {}): Schema =>
  obj({ success, count: { type: 'integer', minimum: 0 }, data: array(items), ...extra });
/** `{ success: true, message }` */
export const messageOnly = (...examples: string[]): Schema =>
  obj({ success, message: examples.length ? { enum: examples } : str });
/** `{ success: true, message, data: { message, ... } }` (auth and password answers) */
export const messageAndData = (messages: string[], data: Record<string, Schema> = {}): Schema =>
  obj({ success, message: { enum: messages }, data: obj({ message: { enum: messages }, ...data }) });

export const json = (schema: Schema, description = 'OK') => ({
  description,
  content: { 'application/json': { schema } },
});

// ------------------------------------------------------------------------------ parameters

export const pathParam = (name: string, schema: Schema = str, description?: string) => ({
  name,
  in: 'path',
  required: true,
  schema,
  ...(description ? { description } : {}),
});
export const queryParam = (name: string, schema: Schema, description?: string, required = false) => ({
  name,
  in: 'query',
  ...(required ? { required: true } : {}),
  schema,
  ...(description ? { description } : {}),
});
/** Cursor paging of chat histories (event room and private room). */
export const messagesPaging = [
  queryParam('before', { type: 'integer', minimum: 1 }, 'message id: only older messages'),
  queryParam('limit', { type: 'integer', minimum: 1, maximum: 100, default: 20 }),
];
export const slugParam = pathParam('slug', { type: 'string', maxLength: 50 }, 'random alphanumeric slug');

// ------------------------------------------------------------------------------ operations

export type Access = 'public' | 'user' | 'admin';

export interface OperationSpec {
  tags: string[];
  summary: string;
  description?: string;
  /** public: no token; user: Bearer; admin: Bearer of an admin (403 ADMIN_REQUIRED otherwise) */
  access: Access;
  parameters?: unknown[];
  /** JSON request body schema */
  body?: Schema;
  bodyRequired?: boolean;
  /** success answers: status → response object */
  ok: Record<string, unknown>;
  /** error answers: status → codes (their messages come from the catalogue) */
  errors?: Record<number, ErrorCode[]>;
  /** extra response objects (e.g. 423 with retryAfter), merged last */
  extra?: Record<string, unknown>;
}

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** Error body restricted to `codes`. */
export function errorSchema(codes: ErrorCode[]): Schema {
  return { allOf: [ref('Error'), { properties: { code: { enum: codes } } }] };
}

export function errorResponse(codes: ErrorCode[], status?: number) {
  const wrong = codes.filter((c) => status !== undefined && ErrorCatalogue[c].status !== status);
  if (wrong.length) throw new Error(`OpenAPI: ${wrong.join(', ')} is not answered with ${status} (see src/lib/errors.ts)`);
  const description = codes.map((c) => `${c}: "${messageOf(c)}"`).join('; ');
  return json(errorSchema(codes), description);
}
/** Short names used across the feature fragments. */
export const error = errorResponse;
export const bearer = [{ bearer: [] }];

const RETRY_AFTER_HEADER = {
  description:
    'Whole seconds (≥ 1) until the request may succeed: the rate-limit window, the match-request bucket refilling (MATCH_REQUESTS_RATE_LIMITED), 60 for TOO_MANY_PENDING_MATCHES.',
  schema: { type: 'integer', minimum: 1 },
};

const ETAG_HEADER = {
  description:
    "A weak validator of this answer's bytes (`W/\"<length>-<hash>\"`): send it back as `If-None-Match` on the next poll and an unchanged answer is a 304 without a body.",
  schema: { type: 'string' },
};

/**
 * Every JSON answer of a GET carries an ETag (Express's, or the read cache's for the hot reads:
 * src/middleware/cached-read.ts, src/lib/http.ts), and a poll that names it in If-None-Match
 * while the answer is unchanged gets 304 with no body: cheap polling for phones, documented so
 * that clients use it.
 */
function conditionalGet(responses: Record<string, unknown>): void {
  const ok = responses['200'] as { content?: Record<string, unknown>; headers?: Record<string, unknown> } | undefined;
  if (!ok?.content?.['application/json']) return;
  responses['200'] = { ...ok, headers: { ...ok.headers, ETag: ETAG_HEADER } };
  responses['304'] = {
    description: "Not Modified: If-None-Match named the current answer's ETag; no body (keep the copy you hold).",
    headers: { ETag: ETAG_HEADER },
  };
}

/** Builds an operation object with the answers every operation of its kind can give. */
export function operation(method: Method, spec: OperationSpec): Record<string, unknown> {
  const errors = new Map<number, Set<ErrorCode>>();
  const add = (status: number, ...codes: ErrorCode[]) => {
    const set = errors.get(status) ?? new Set<ErrorCode>();
    for (const c of codes) set.add(c);
    errors.set(status, set);
  };
  for (const [status, codes] of Object.entries(spec.errors ?? {})) add(Number(status), ...codes);
  // A path parameter that is not valid percent-encoding (e.g. `%E0%A4%A`) is refused by the router.
  if (spec.parameters?.some((p) => (p as { in?: string }).in === 'path')) add(400, 'BAD_REQUEST');
  // Every request may carry a JSON body (parsed before any route), and hostile input
  // (src/middleware/input-guard.ts) is refused before any route: a control character in the path
  // or query, U+0000 in the JSON body, a body that is not a JSON object. A value the database
  // cannot hold that validation let through is a 400 too, never a 500. A query parameter given
  // twice or as an array/object (`limit=5&limit=6`, `limit[]=5`) is a 400 VALIDATION_ERROR naming it (issue 23).
  add(400, 'VALIDATION_ERROR', 'BAD_REQUEST', 'MALFORMED_JSON');
  add(413, 'PAYLOAD_TOO_LARGE');
  add(415, 'UNSUPPORTED_ENCODING');
  if (spec.access !== 'public') add(401, 'AUTH_REQUIRED', 'INVALID_TOKEN');
  if (spec.access === 'admin') add(403, 'ADMIN_REQUIRED');
  if (method !== 'get') add(403, 'CSRF_INVALID');
  add(429, 'RATE_LIMITED');
  add(500, 'INTERNAL_ERROR');
  add(503, 'SERVICE_UNAVAILABLE');

  const responses: Record<string, unknown> = { ...spec.ok };
  if (method === 'get') conditionalGet(responses);
  for (const status of [...errors.keys()].sort((a, b) => a - b)) {
    responses[String(status)] = errorResponse([...errors.get(status)!], status);
  }
  // issue 23: every 429 says when to come back
  if (responses['429']) responses['429'] = { ...(responses['429'] as object), headers: { 'Retry-After': RETRY_AFTER_HEADER } };
  Object.assign(responses, spec.extra ?? {});

  const op: Record<string, unknown> = {
    tags: spec.tags,
    summary: spec.summary,
    ...(spec.description ? { description: spec.description } : {}),
    security: spec.access === 'public' ? [] : [{ bearer: [] }],
    ...(spec.parameters?.length ? { parameters: spec.parameters } : {}),
  };
  if (spec.body) {
    op.requestBody = { required: spec.bodyRequired ?? true, content: { 'application/json': { schema: spec.body } } };
  }
  op.responses = responses;
  return op;
}

// ------------------------------------------------------------------------------ shared resources

/** The fields of the heat view (src/modules/heats/heats.views.ts), for HeatWithNumber. */
const heatProperties = heatView.schema.properties as Record<string, Schema>;

const statsMatches = obj({ total: int, pending: int, accepted: int, completed: int });
const statsRatings = obj({ received: int, given: int, average: { type: ['number', 'null'], description: '2 decimals; null without ratings' } });
/** accepted recording suggestions over all events: done = as recorder, received = for the user's heats */
const statsRecordings = obj({ done: int, received: int });




/** The fields of the suggestion view (src/modules/matching/matching.views.ts), for the schemas that extend it. */
export const suggestionProperties = suggestionView.schema.properties as Record<string, Schema>;

/** The fields of the run view (src/modules/matching/matching.views.ts), for RunDetail and RunPreview. */
const runProperties = runView.schema.properties as Record<string, Schema>;

const unfilledHeat = obj({
  heatId: int,
  reason: ref('UnfilledReason'),
  heat: { oneOf: [ref('Heat'), { type: 'null' }] },
  dancer: { oneOf: [ref('UserSummary'), { type: 'null' }] },
});

export const userSummary = ref('UserSummary');

/** The shared component schemas (merged into `components.schemas`). */
export const componentSchemas: Record<string, Schema> = {
  ErrorCode: { enum: Object.keys(ErrorCatalogue), description: 'Every error code of the API (see the error catalogue in the description of each answer).' },
  ErrorDetail: obj({ field: str, message: str }),
  Error: obj(
    {
      success: { const: false },
      error: { type: 'string', description: 'human-readable message' },
      code: ref('ErrorCode'),
      details: { ...array(ref('ErrorDetail')), description: 'input validation: one entry per field' },
    },
    ['details'],
  ),
  AccountLockedError: obj({
    success: { const: false },
    error: { type: 'string', pattern: '^Account is locked\\. Try again in \\d+ minute\\(s\\)\\.$' },
    code: { const: 'ACCOUNT_LOCKED' },
    retryAfter: { type: 'integer', minimum: 1, description: 'seconds; also sent as the Retry-After header' },
  }),
  AccountSuspendedError: obj({
    success: { const: false },
    error: { const: 'Account suspended' },
    code: { const: 'ACCOUNT_SUSPENDED' },
    until: { ...nullDateTime, description: 'when the suspension ends by itself; null: until an admin lifts it' },
  }),
  UserBrief: obj({ id: int, username: str, avatar: str }),
  DeletedUserBrief: {
    ...obj({ id: { type: 'null' }, username: { const: 'deleted-user' }, avatar: { type: 'null' } }),
    description: 'The placeholder of a deleted account where its traces stay (e.g. the rater of a rating it gave)',
  },
  DeletedUserSummary: {
    ...obj({ id: { type: 'null' }, username: { const: 'deleted-user' }, avatar: { type: 'null' }, firstName: { type: 'null' }, lastName: { type: 'null' } }),
    description: 'The placeholder of a deleted account in user summaries (e.g. `from` of match_cancelled after an account deletion)',
  },
  UserStats: obj({ matches: statsMatches, ratings: statsRatings, recordings: statsRecordings }),
  PublicUserStats: obj({ matches: obj({ total: int, accepted: int, completed: int }), ratings: statsRatings, recordings: statsRecordings }),
  AuthResult: obj({ token: { type: 'string', description: 'JWT (HS256, 24 h)' }, user: ref('User') }),
  ScheduleConfig: scheduleConfigSchema,
  PublicEvent: obj({
    ...(eventObjectView.schema.properties as Record<string, Schema>),
    chatRooms: array(obj({ id: int, eventId: int, type: { const: 'event' }, createdAt: dateTime })),
    _count: obj({ matches: int }),
  }),
  HeatWithNumber: obj({ ...heatProperties, competitorNumber: nullStr }),
  Rating: obj({
    id: int,
    matchId: nullInt,
    raterId: { ...nullInt, description: 'null once the rater deleted the account' },
    ratedId: int,
    eventId: int,
    score: { type: 'integer', minimum: 1, maximum: 5 },
    comment: nullStr,
    wouldCollaborateAgain: { type: ['boolean', 'null'] },
    createdAt: dateTime,
    rater: { oneOf: [ref('UserBrief'), ref('DeletedUserBrief')] },
    rated: ref('UserBrief'),
    event: ref('EventRef'),
  }),
  SuggestionDecision: obj({
    ...suggestionProperties,
    match: {
      oneOf: [obj({ id: int, slug: str, status: { enum: ['pending', 'accepted', 'completed'] }, roomId: nullInt }), { type: 'null' }],
      description: 'the accepted match of dancer and recorder after an accept; null after a reject',
    },
  }),
  RunDetail: obj({ ...runProperties, unfilledHeats: array(unfilledHeat) }),
  RunPreview: obj({
    dryRun: { const: true },
    heatsTotal: int,
    heatsAssigned: int,
    heatsUnassigned: int,
    reuse: obj({ previous: int, kept: int, added: int, dropped: int, invalid: int }),
    pins: { ...obj({ kept: int, dropped: int }), description: 'admin pins the run would keep (counted toward caps) and drop (no longer hold)' },
    unfilledByReason: runProperties.unfilledByReason,
    unfilledHeats: array(unfilledHeat),
  }),
  UnfilledReason: {
    enum: [...UNFILLED_REASONS, RECORDER_DELETED],
    description: 'RECORDER_DELETED: the recorder deleted the account (never the reason of a run; a later run may fill the heat)',
  },
  Transfer: {
    ...obj({
      id: int,
      matchSlug: str,
      sender: ref('UserSummary'),
      receiver: { ...ref('UserSummary'), description: 'the other member of the match' },
      fileName: { type: 'string', maxLength: 255 },
      size: { type: 'integer', minimum: 1, description: 'bytes' },
      sha256: { type: 'string', pattern: '^[0-9a-f]{64}$', description: 'as reported by the sender, lower-case hex' },
      status: { enum: ['offered', 'completed', 'failed', 'cancelled'] },
      createdAt: dateTime,
      updatedAt: dateTime,
      finishedAt: { ...nullDateTime, description: 'when the record left `offered`' },
    }),
    description: 'A video hand-off record. Only what the sender reports is stored; the file never reaches the service.',
  },
  Pagination: obj({ page: int, limit: int, total: int, totalPages: int }),
};

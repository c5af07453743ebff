/**
 * The error catalogue: every error the service answers has one code, and each code has one
 * HTTP status and a default message. Services throw `new AppError('EVENT_NOT_FOUND')`; the
 * error handler (src/middleware/error-handler.ts) and socket acknowledgements turn it into the
 * envelope `{ success: false, error, code, details? }`. The OpenAPI document lists the codes.
 */
export interface ErrorDetail {
  field: string;
  message: string;
}

export const ErrorCatalogue = {
  // input
  VALIDATION_ERROR: { status: 400, message: 'Validation failed' },
  MALFORMED_JSON: { status: 400, message: 'Malformed JSON body' },
  BAD_REQUEST: { status: 400, message: 'Bad request' },
  REQUEST_ABORTED: { status: 400, message: 'Request aborted' },
  INVALID_REFERENCE: { status: 400, message: 'Referenced resource does not exist' },
  PAYLOAD_TOO_LARGE: { status: 413, message: 'Request body too large' },
  UNSUPPORTED_ENCODING: { status: 415, message: 'Unsupported request encoding' },
  // authentication and authorization
  AUTH_REQUIRED: { status: 401, message: 'Authentication required' },
  INVALID_TOKEN: { status: 401, message: 'Invalid or expired token' },
  INVALID_CREDENTIALS: { status: 401, message: 'Invalid email or password' },
  ADMIN_REQUIRED: { status: 403, message: 'Admin access required' },
  EMAIL_NOT_VERIFIED: { status: 403, message: 'Email verification required' },
  CSRF_INVALID: { status: 403, message: 'Invalid CSRF token' },
  FORBIDDEN: { status: 403, message: 'Forbidden' },
  ACCOUNT_LOCKED: { status: 423, message: 'Account is locked' },
  METRICS_TOKEN_REQUIRED: { status: 401, message: 'A valid metrics token is required' },
  // accounts
  EMAIL_TAKEN: { status: 409, message: 'Email already registered' },
  USERNAME_TAKEN: { status: 409, message: 'Username already taken' },
  WRONG_PASSWORD: { status: 400, message: 'Current password is incorrect' },
  INVALID_VERIFICATION_TOKEN: { status: 400, message: 'Invalid or expired verification token' },
  INVALID_VERIFICATION_CODE: { status: 400, message: 'Invalid or expired verification code' },
  INVALID_RESET_TOKEN: { status: 400, message: 'Invalid or expired reset token' },
  USER_NOT_FOUND: { status: 404, message: 'User not found' },
  // registry
  REGISTRY_DANCER_NOT_FOUND: { status: 404, message: 'Dancer not found in registry' },
  REGISTRY_UNAVAILABLE: { status: 502, message: 'Registry is unavailable, please try again later' },
  REGISTRY_TIMEOUT: { status: 504, message: 'Registry did not answer in time, please try again later' },
  // events and chat
  EVENT_NOT_FOUND: { status: 404, message: 'Event not found' },
  NOT_PARTICIPANT: { status: 403, message: 'You must be a participant of this event' },
  NOT_JOINED: { status: 400, message: 'You are not a participant of this event' },
  INVALID_CHECKIN_TOKEN: { status: 404, message: 'Invalid check-in token' },
  CHECKIN_NOT_AVAILABLE: { status: 400, message: 'Check-in is not available for this event at this time' },
  CHECKIN_QR_FORBIDDEN: { status: 403, message: 'Only admins and participants can see the check-in QR code' },
  CHAT_ROOM_NOT_FOUND: { status: 404, message: 'Chat room not found' },
  NOT_IN_ROOM: { status: 400, message: 'Join an event room first' },
  CHAT_FLOOD: { status: 429, message: 'You are sending messages too fast' },
  ROOM_JOIN_THROTTLED: { status: 429, message: 'You are joining rooms too fast' },
  TOO_MANY_CONNECTIONS: { status: 429, message: 'Too many connections for this user' },
  // heats
  DUPLICATE_HEAT: {
    status: 400,
    message: 'Cannot have duplicate heats with same role in same division and competition type',
  },
  HEAT_NOT_FOUND: { status: 404, message: 'Heat not found' },
  NOT_HEAT_OWNER: { status: 403, message: 'You can only delete your own heats' },
  // matches
  MATCH_NOT_FOUND: { status: 404, message: 'Match not found' },
  MATCH_SELF: { status: 400, message: 'You cannot create a match with yourself' },
  TARGET_NOT_PARTICIPANT: { status: 400, message: 'Target user is not a participant of this event' },
  MATCH_EXISTS: { status: 409, message: 'Match already exists' },
  TOO_MANY_PENDING_MATCHES: { status: 429, message: 'Too many pending match requests', retryAfterSeconds: 60 },
  MATCH_REQUESTS_RATE_LIMITED: { status: 429, message: 'You are sending match requests too fast' },
  NOT_MATCH_TARGET: { status: 403, message: 'Only the invited user can accept this match' },
  MATCH_NOT_PENDING: { status: 400, message: 'Match is not pending' },
  MATCH_NOT_ACCEPTED: { status: 400, message: 'Only accepted matches can be rated' },
  ALREADY_RATED: { status: 409, message: 'You have already rated this match' },
  // video hand-off
  INVALID_SIGNAL: { status: 400, message: 'Invalid signal' },
  UNKNOWN_SIGNAL_KIND: { status: 400, message: 'kind must be one of offer, answer, ice-candidate, hangup' },
  SIGNAL_TOO_LARGE: { status: 413, message: 'Signal too large' },
  SIGNAL_RATE_LIMITED: { status: 429, message: 'Too many signals, slow down' },
  TRANSFER_NOT_FOUND: { status: 404, message: 'Transfer not found' },
  NOT_TRANSFER_RECEIVER: { status: 403, message: 'Only the receiver can complete a transfer' },
  TRANSFER_NOT_OFFERED: { status: 400, message: 'Transfer is not offered' },
  // matching
  MATCHING_RUN_NOT_FOUND: { status: 404, message: 'Matching run not found' },
  MATCHING_RUN_IN_PROGRESS: { status: 409, message: 'A matching run is already in progress for this event' },
  MATCHING_RUN_FAILED: { status: 500, message: 'Matching run failed' },
  MATCHING_RUN_NOT_CURRENT: { status: 409, message: 'Only the plan of the latest successful run can be exported' },
  SUGGESTION_NOT_FOUND: { status: 404, message: 'Suggestion not found' },
  NOT_RECORDER: { status: 403, message: 'Only the recorder can accept or reject this suggestion' },
  SUGGESTION_NOT_PENDING: { status: 409, message: 'Only a pending suggestion can be accepted or rejected' },
  // privacy (account deletion, docs/privacy.md)
  LAST_ADMIN: { status: 409, message: 'The last admin account cannot be deleted' },
  // security hardening (docs/security-hardening.md)
  EMAIL_CHANGE_LIMITED: { status: 429, message: 'Too many e-mail changes, please try again later' },
  TOO_MANY_OPEN_TRANSFERS: {
    status: 429,
    message: 'Too many open transfer offers for this match',
    retryAfterSeconds: 60,
  },
  // fair matching for people (pins, no-shows) and the matching side of blocks
  PARTICIPANT_NOT_FOUND: { status: 404, message: 'Participant not found' },
  HEAT_ALREADY_COVERED: { status: 409, message: 'This heat already has an accepted recorder' },
  RECORDER_IS_DANCER: { status: 409, message: 'The recorder is the dancer of this heat' },
  RECORDER_NOT_PARTICIPANT: { status: 409, message: 'The recorder is not a participant of this event' },
  RECORDER_ABSENT: { status: 409, message: 'The recorder is marked absent' },
  RECORDER_DANCING: { status: 409, message: 'The recorder dances at the time of this heat' },
  RECORDER_IN_BUFFER: { status: 409, message: "This heat is within the buffers around one of the recorder's heats" },
  RECORDER_UNAVAILABLE: { status: 409, message: 'The recorder is unavailable at the time of this heat' },
  PAIR_REJECTED: { status: 409, message: 'This recorder was rejected for this heat' },
  RECORDER_AT_CAP: { status: 409, message: 'The recorder already records the maximum number of heats' },
  USER_BLOCKED: { status: 403, message: 'You cannot interact with this user' },
  // safety and moderation (blocks, reports, suspension, message removal, duplicate filter, CAPTCHA)
  BLOCK_SELF: { status: 400, message: 'You cannot block yourself' },
  REPORT_SELF: { status: 400, message: 'You cannot report yourself' },
  REPORT_EXISTS: { status: 409, message: 'You have already reported this' },
  REPORT_NOT_FOUND: { status: 404, message: 'Report not found' },
  REPORT_NOT_OPEN: { status: 409, message: 'Only an open report can be resolved or dismissed' },
  MESSAGE_NOT_FOUND: { status: 404, message: 'Message not found' },
  SUSPEND_SELF: { status: 400, message: 'You cannot suspend yourself' },
  ADMIN_NOT_SUSPENDABLE: { status: 403, message: 'Admins cannot be suspended' },
  ACCOUNT_SUSPENDED: { status: 403, message: 'Account suspended' },
  DUPLICATE_MESSAGE: { status: 409, message: 'Duplicate message' },
  CAPTCHA_FAILED: { status: 400, message: 'CAPTCHA verification failed' },
  CAPTCHA_UNAVAILABLE: { status: 503, message: 'CAPTCHA verification is unavailable, please try again later' },
  // protocol gaps (issue 23, outages helper): a socket event the service does not know
  UNKNOWN_EVENT: { status: 400, message: 'Unknown event' },
  // generic
  NOT_FOUND: { status: 404, message: 'Not found' },
  CONFLICT: { status: 409, message: 'Resource already exists' },
  RATE_LIMITED: { status: 429, message: 'Too many requests, please try again later' },
  INTERNAL_ERROR: { status: 500, message: 'Internal server error' },
  // database down or its pool exhausted (issue 16): clients retry after `retryAfterSeconds`
  SERVICE_UNAVAILABLE: { status: 503, message: 'Service temporarily unavailable', retryAfterSeconds: 1 },
} as const satisfies Record<string, { status: number; message: string; retryAfterSeconds?: number }>;

export type ErrorCode = keyof typeof ErrorCatalogue;

export interface AppErrorOptions {
  /** replaces the catalogue's default message (e.g. with a number in it) */
  message?: string;
  details?: ErrorDetail[];
  /** extra top-level fields of the error body (e.g. `retryAfter`) */
  extra?: Record<string, unknown>;
  /** extra response headers (a code with `retryAfterSeconds` gets `Retry-After` unless given here) */
  headers?: Record<string, string>;
}

/** `Retry-After` of a code that has one in the catalogue. */
function defaultHeaders(code: ErrorCode): Record<string, string> | undefined {
  const entry = ErrorCatalogue[code];
  return 'retryAfterSeconds' in entry ? { 'Retry-After': String(entry.retryAfterSeconds) } : undefined;
}

export class AppError extends Error {
  readonly status: number;
  readonly details?: ErrorDetail[];
  readonly extra?: Record<string, unknown>;
  readonly headers?: Record<string, string>;

  constructor(
    readonly code: ErrorCode,
    options: AppErrorOptions = {},
  ) {
    super(options.message ?? ErrorCatalogue[code].message);
    this.name = 'AppError';
    this.status = ErrorCatalogue[code].status;
    this.details = options.details;
    this.extra = options.extra;
    this.headers = options.headers ?? defaultHeaders(code);
  }
}

/** 400 "Validation failed" with one detail per field. */
export const validationFailed = (details: ErrorDetail[], message?: string) =>
  new AppError('VALIDATION_ERROR', { details, message });

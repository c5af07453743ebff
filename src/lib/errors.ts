/**
 * Typed application errors. Services throw these; the central error handler
 * (src/middleware/error-handler.ts) turns them into the envelope of DECISIONS.md:
 * `{ success: false, error, code, details? }`.
 */
export interface ErrorDetail {
  field: string;
  message: string;
}

export class AppError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string,
    readonly details?: ErrorDetail[],
    /** extra top-level fields of the error body (e.g. `retryAfter`) */
    readonly extra?: Record<string, unknown>,
    /** extra response headers (e.g. `Retry-After`) */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export const badRequest = (message: string, code = 'BAD_REQUEST', details?: ErrorDetail[]) =>
  new AppError(400, message, code, details);
export const validationFailed = (details: ErrorDetail[], message = 'Validation failed') =>
  new AppError(400, message, 'VALIDATION_ERROR', details);
export const unauthorized = (message = 'Authentication required', code = 'AUTH_REQUIRED') =>
  new AppError(401, message, code);
export const invalidToken = () => new AppError(401, 'Invalid or expired token', 'INVALID_TOKEN');
export const forbidden = (message: string, code = 'FORBIDDEN') => new AppError(403, message, code);
export const notFound = (message: string, code = 'NOT_FOUND') => new AppError(404, message, code);
export const conflict = (message: string, code = 'CONFLICT') => new AppError(409, message, code);
export const tooManyRequests = (message: string, code = 'TOO_MANY_REQUESTS') => new AppError(429, message, code);
export const serviceUnavailable = () =>
  new AppError(503, 'Service temporarily unavailable', 'SERVICE_UNAVAILABLE');

// Frequently used messages, verbatim from SPEC.md / DECISIONS.md.
export const Messages = {
  eventNotFound: 'Event not found',
  chatRoomNotFound: 'Chat room not found',
  notParticipantMust: 'You must be a participant of this event',
  adminRequired: 'Admin access required',
  emailVerificationRequired: 'Email verification required',
  matchNotFound: 'Match not found',
  userNotFound: 'User not found',
} as const;

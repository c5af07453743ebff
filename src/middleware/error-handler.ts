import type { NextFunction, Request, Response } from 'express';
import { Prisma } from '../generated/prisma/client.js';
import { AppError, validationFailed, type ErrorCode } from '../lib/errors.js';
import type { Logger } from '../lib/logger.js';
import type { LoggedFailure } from './request-logger.js';
import {
  invalidInputSqlState,
  isDatabaseUnavailable,
  isForeignKeyViolation,
  isInvalidInputValue,
  isRecordNotFound,
  isUniqueViolation,
} from '../lib/prisma-errors.js';

/** 404 "Not found" for any unknown path under /api. */
export function notFoundHandler(_req: Request, res: Response): void {
  res.status(404).json({ success: false, error: 'Not found', code: 'NOT_FOUND' });
}

interface HttpLikeError {
  type?: string;
  status?: number;
  statusCode?: number;
  name?: string;
}

const BODY_PARSER_ERRORS: Record<string, ErrorCode> = {
  'entity.parse.failed': 'MALFORMED_JSON',
  'entity.too.large': 'PAYLOAD_TOO_LARGE',
  'encoding.unsupported': 'UNSUPPORTED_ENCODING',
  'charset.unsupported': 'UNSUPPORTED_ENCODING',
  'request.aborted': 'REQUEST_ABORTED',
};

/** Any error as an AppError of the catalogue. Never keeps a stack, SQL or a library's message. */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const e = (err ?? {}) as HttpLikeError;
  const bodyParserCode = e.type ? BODY_PARSER_ERRORS[e.type] : undefined;
  if (bodyParserCode) return new AppError(bodyParserCode);
  // jsonwebtoken errors that escaped a service
  if (e.name === 'JsonWebTokenError' || e.name === 'TokenExpiredError' || e.name === 'NotBeforeError') {
    return new AppError('INVALID_TOKEN');
  }
  if (isUniqueViolation(err)) return new AppError('CONFLICT');
  if (isRecordNotFound(err)) return new AppError('NOT_FOUND');
  if (isForeignKeyViolation(err)) return new AppError('INVALID_REFERENCE');
  if (err instanceof Prisma.PrismaClientValidationError)
    return new AppError('BAD_REQUEST', { message: 'Invalid request' });
  // text that is not of the column's type (22P02) in a raw query: input (issue 23, DECISIONS "Query parameters")
  if (invalidInputSqlState(err) === '22P02')
    return validationFailed([{ field: 'request', message: 'a value is not of the expected type' }]);
  // a value the column cannot hold (NUL in text, an integer or date out of range) that slipped past validation
  if (isInvalidInputValue(err)) return new AppError('BAD_REQUEST', { message: 'Invalid request' });
  if (isDatabaseUnavailable(err)) return new AppError('SERVICE_UNAVAILABLE');
  // other HTTP errors raised by middleware (e.g. 4xx from a library)
  const status = e.status ?? e.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500)
    return new AppError(status === 404 ? 'NOT_FOUND' : 'BAD_REQUEST');
  return new AppError('INTERNAL_ERROR');
}

/** The error envelope of an AppError: `{ success: false, error, code, details?, ...extra }`. */
export function errorBody(err: AppError): Record<string, unknown> {
  const body: Record<string, unknown> = { success: false, error: err.message, code: err.code };
  if (err.details) body.details = err.details;
  if (err.extra) Object.assign(body, err.extra);
  return body;
}

/** Maps an error to { status, body, headers }. */
export function toErrorResponse(err: unknown): {
  status: number;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
} {
  const appError = toAppError(err);
  return { status: appError.status, body: errorBody(appError), headers: appError.headers };
}

/**
 * The one error handler of the app: every error becomes the envelope. A failed request is
 * logged once (issue 16): the request logger's line carries the code and, for a 5xx other than
 * 503, the cause with its stack (src/middleware/request-logger.ts). A 503 (database down, pool exhausted) is an outage
 * symptom, logged at `warn` without a stack. Without a request logger this logs the line itself.
 */
export function errorHandler(logger: Logger) {
  return (err: unknown, _req: Request, res: Response, _next: NextFunction): void => {
    const { status, body, headers } = toErrorResponse(err);
    const failure = res.locals as LoggedFailure;
    failure.errorCode = String(body.code);
    if (status >= 500 && status !== 503) failure.err = err instanceof Error ? err : new Error(String(err));
    if (!res.locals.requestLogged && status >= 500) {
      if (status === 503) logger.warn({ code: body.code }, 'request failed: service unavailable');
      else logger.error({ err }, 'request failed');
    }
    if (res.headersSent) {
      res.end();
      return;
    }
    if (headers) res.set(headers);
    res.status(status).json(body);
  };
}

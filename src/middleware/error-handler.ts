import type { NextFunction, Request, Response } from 'express';
import { Prisma } from '../generated/prisma/client.js';
import { AppError } from '../lib/errors.js';
import { logger } from '../lib/logger.js';
import {
  isDatabaseUnavailable,
  isForeignKeyViolation,
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
  code?: string;
  name?: string;
}

/** Maps an error to { status, body }. Never leaks a stack, SQL or a library's message. */
export function toErrorResponse(err: unknown): { status: number; body: Record<string, unknown>; headers?: Record<string, string> } {
  if (err instanceof AppError) {
    const body: Record<string, unknown> = { success: false, error: err.message, code: err.code };
    if (err.details) body.details = err.details;
    if (err.extra) Object.assign(body, err.extra);
    return { status: err.status, body, headers: err.headers };
  }
  const e = (err ?? {}) as HttpLikeError;
  // body-parser errors
  if (e.type === 'entity.parse.failed') return fail(400, 'Malformed JSON body', 'MALFORMED_JSON');
  if (e.type === 'entity.too.large') return fail(413, 'Request body too large', 'PAYLOAD_TOO_LARGE');
  if (e.type === 'encoding.unsupported' || e.type === 'charset.unsupported') {
    return fail(415, 'Unsupported request encoding', 'UNSUPPORTED_ENCODING');
  }
  if (e.type === 'request.aborted') return fail(400, 'Request aborted', 'REQUEST_ABORTED');
  // jsonwebtoken errors that escaped a service
  if (e.name === 'JsonWebTokenError' || e.name === 'TokenExpiredError' || e.name === 'NotBeforeError') {
    return fail(401, 'Invalid or expired token', 'INVALID_TOKEN');
  }
  if (isUniqueViolation(err)) return fail(409, 'Resource already exists', 'CONFLICT');
  if (isRecordNotFound(err)) return fail(404, 'Not found', 'NOT_FOUND');
  if (isForeignKeyViolation(err)) return fail(400, 'Referenced resource does not exist', 'INVALID_REFERENCE');
  if (err instanceof Prisma.PrismaClientValidationError) return fail(400, 'Invalid request', 'BAD_REQUEST');
  if (isDatabaseUnavailable(err)) return fail(503, 'Service temporarily unavailable', 'SERVICE_UNAVAILABLE');
  // other HTTP errors raised by middleware (e.g. 4xx from a library)
  const status = e.status ?? e.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return fail(status, status === 404 ? 'Not found' : 'Bad request', status === 404 ? 'NOT_FOUND' : 'BAD_REQUEST');
  }
  return fail(500, 'Internal server error', 'INTERNAL_ERROR');
}

function fail(status: number, error: string, code: string) {
  return { status, body: { success: false, error, code } };
}

export function errorHandler(err: unknown, req: Request, res: Response, _next: NextFunction): void {
  const { status, body, headers } = toErrorResponse(err);
  if (status >= 500) {
    (req.log ?? logger).error({ err }, 'request failed');
  }
  if (res.headersSent) {
    res.end();
    return;
  }
  if (headers) res.set(headers);
  res.status(status).json(body);
}

import { randomUUID } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from '../lib/logger.js';
import { isWarmUpRequest } from '../lib/warm-up.js';

/** GET /api/health, /api/health/live, /api/health/ready (with or without a query string). */
const isProbe = (url: string) => /^\/api\/health(?:\/live|\/ready)?(?:\?|$)/.test(url);
const INCOMING_ID = /^[\w.-]{1,100}$/;
/** Secrets in query strings (e.g. GET /api/auth/verify-email?token=…) never reach the log. */
const SECRET_PARAMETER = /([?&](?:token|code)=)[^&]*/gi;

/** What the error handler leaves for the request's log line (src/middleware/error-handler.ts). */
export interface LoggedFailure {
  /** the catalogue code of the answer */
  errorCode?: string;
  /** the cause of a 5xx other than 503, logged with its stack */
  err?: Error;
}

/**
 * One structured log line per request, written when the response is closed (after it was
 * finished, or when the connection closed first), with a request id echoed in `X-Request-Id`:
 * `{ req: { id, method, url }, res: { statusCode }, responseTime, msg: "request completed" }`.
 * A failed request's line is the only one it gets (issue 16): `warn` for a 4xx, with its `code`;
 * `error` for a 5xx with its `code` and the cause with its stack (`err`); a 503 is an outage
 * symptom (database down, pool exhausted): `warn`, the code, no stack. Successful health
 * probes (every few seconds per orchestrator) are logged at debug only.
 *
 * Written here rather than with pino-http: pino-http builds a child logger per request (its
 * bindings serialised and redacted each time), which cost a sixth of the throughput of a cached
 * hot read (docs/benchmarks.md, issue 29). The line is the one pino-http wrote.
 */
export function createRequestLogger(base: Logger): RequestHandler {
  // The line's fields are all chosen here (no header, no body; secrets in the query redacted
  // above): the logger's redaction paths, which cost as much as the rest of the line, are skipped.
  const logger = base.child({}, { redact: [] });
  return (req, res, next) => {
    // the start-up's warm-up (src/lib/warm-up.ts) logs one line for all its requests
    if (isWarmUpRequest(req)) return next();
    const incoming = req.headers['x-request-id'];
    const id = typeof incoming === 'string' && INCOMING_ID.test(incoming) ? incoming : randomUUID();
    res.setHeader('X-Request-Id', id);
    res.locals.requestLogged = true;
    const start = Date.now();
    // the URL as it arrived (routers rewrite req.url while they handle it)
    const url = req.url;
    let logged = false;
    const done = (err?: unknown) => {
      if (logged) return;
      logged = true;
      if (err instanceof Error) (res.locals as LoggedFailure).err ??= err;
      logLine(logger, req, res, { id, url, responseTime: Date.now() - start }, err instanceof Error);
    };
    // 'close' comes after 'finish' for an answered request, and alone when the client went away
    // first: one listener, never removed (the response is dropped with them)
    res.once('close', done);
    // a response stream error is logged (and, listened to, cannot end the process)
    res.on('error', done);
    next();
  };
}

function logLine(
  logger: Logger,
  req: Request,
  res: Response,
  { id, url, responseTime }: { id: string; url: string; responseTime: number },
  streamError: boolean,
): void {
  const status = res.statusCode;
  const failure = res.locals as LoggedFailure;
  const line: Record<string, unknown> = {
    req: { id, method: req.method, url: url.replace(SECRET_PARAMETER, '$1[redacted]') },
    res: { statusCode: status },
    responseTime,
  };
  if (status < 400 && !streamError) {
    if (isProbe(url)) logger.debug(line, 'request completed');
    else logger.info(line, 'request completed');
    return;
  }
  if (failure.errorCode) line.code = failure.errorCode;
  if (status === 503) {
    line.code ??= 'SERVICE_UNAVAILABLE';
    logger.warn(line, 'request failed: service unavailable');
  } else if (status >= 500 || streamError) {
    line.err = failure.err ?? new Error(`failed with status code ${status}`);
    logger.error(line, 'request failed');
  } else {
    // as pino-http wrote a 4xx: "request completed" at warn (now with its code)
    logger.warn(line, 'request completed');
  }
}

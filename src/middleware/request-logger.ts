import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import { pinoHttp } from 'pino-http';
import type { Logger } from '../lib/logger.js';

/** GET /api/health, /api/health/live, /api/health/ready (with or without a query string). */
const isProbe = (url: string | undefined) => /^\/api\/health(?:\/live|\/ready)?(?:\?|$)/.test(url ?? '');

/** One structured log line per request, with a request id echoed in `X-Request-Id`. */
export function createRequestLogger(logger: Logger): RequestHandler {
  return pinoHttp({
    logger,
    genReqId: (req, res) => {
      const incoming = req.headers['x-request-id'];
      const id = typeof incoming === 'string' && /^[\w.-]{1,100}$/.test(incoming) ? incoming : randomUUID();
      res.setHeader('X-Request-Id', id);
      return id;
    },
    // One line per request; the error handler hands it the cause (issue 16). A 503 is an outage
    // symptom (database down, pool exhausted): `warn`, the code, no stack.
    // Successful health probes (every few seconds per orchestrator) are logged at debug only.
    customLogLevel: (req, res, err) =>
      isProbe((req as { originalUrl?: string }).originalUrl ?? req.url) && res.statusCode < 400
        ? 'debug'
        : res.statusCode === 503
          ? 'warn'
          : err || res.statusCode >= 500
            ? 'error'
            : res.statusCode >= 400
              ? 'warn'
              : 'info',
    customErrorObject: (_req, res, _err, val: Record<string, unknown>) => {
      const code = (res as { locals?: { errorCode?: unknown } }).locals?.errorCode;
      if (res.statusCode !== 503) return code ? { ...val, code } : val;
      const { err: _dropped, ...rest } = val;
      return { ...rest, code: code ?? 'SERVICE_UNAVAILABLE' };
    },
    customErrorMessage: (_req, res) =>
      res.statusCode === 503 ? 'request failed: service unavailable' : 'request failed',
    serializers: {
      // Secrets in query strings (e.g. GET /api/auth/verify-email?token=…) never reach the log.
      req: (req: { id: unknown; method: string; url: string }) => ({
        id: req.id,
        method: req.method,
        url: req.url.replace(/([?&](?:token|code)=)[^&]*/gi, '$1[redacted]'),
      }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
  }) as RequestHandler;
}

import { randomUUID } from 'node:crypto';
import { pinoHttp } from 'pino-http';
import { logger } from '../lib/logger.js';

/** One structured log line per request, with a request id echoed in `X-Request-Id`. */
export const requestLogger = pinoHttp({
  logger,
  genReqId: (req, res) => {
    const incoming = req.headers['x-request-id'];
    const id = typeof incoming === 'string' && /^[\w.-]{1,100}$/.test(incoming) ? incoming : randomUUID();
    res.setHeader('X-Request-Id', id);
    return id;
  },
  customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info'),
  serializers: {
    // Secrets in query strings (e.g. GET /api/auth/verify-email?token=…) never reach the log.
    req: (req: { id: unknown; method: string; url: string }) => ({
      id: req.id,
      method: req.method,
      url: req.url.replace(/([?&](?:token|code)=)[^&]*/gi, '$1[redacted]'),
    }),
    res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
  },
});

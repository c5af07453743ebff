import pino from 'pino';
import { config } from '../config/index.js';

/** Structured JSON logs; secrets in request headers and bodies are redacted. */
export const logger = pino({
  level: config.logLevel,
  base: { service: 'wcs-partner-service' },
  redact: {
    paths: [
      'req.headers.authorization',
      'req.headers.cookie',
      'req.headers["x-csrf-token"]',
      'res.headers["set-cookie"]',
      '*.password',
      '*.passwordHash',
      '*.token',
      '*.newPassword',
      '*.currentPassword',
    ],
    censor: '[redacted]',
  },
});

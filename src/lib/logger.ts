import pino, { type Logger } from 'pino';
import { bridgedContainer } from '../container-bridge.js';

export type { Logger };

/** Structured JSON logs; secrets in request headers and bodies are redacted. */
export function createLogger(level: string): Logger {
  return pino({
    level,
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
}

/** @deprecated transitional: the current container's logger (src/container-bridge.ts). */
export const logger: Logger = new Proxy({} as Logger, {
  get(_t, key) {
    const real = bridgedContainer().logger;
    const value = Reflect.get(real, key, real) as unknown;
    return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(real) : value;
  },
});

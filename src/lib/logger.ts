import pino, { type TransportSingleOptions } from 'pino';
import { config, type Config } from '../config/index.js';

/**
 * Human-readable lines (pino-pretty, in a worker thread) only for a developer watching a
 * terminal: development and stdout is a TTY. Everything else, production, tests, a pipe or a
 * file, gets one JSON object per line for the log collector.
 */
export function prettyTransport(env: Config['env'], stdoutIsTTY: boolean): TransportSingleOptions | undefined {
  if (env !== 'development' || !stdoutIsTTY) return undefined;
  return {
    target: 'pino-pretty',
    options: { colorize: true, singleLine: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,service' },
  };
}

/** Structured logs; secrets in request headers and bodies are redacted. */
export const logger = pino({
  level: config.logLevel,
  base: { service: 'wcs-partner-service' },
  transport: prettyTransport(config.env, process.stdout.isTTY === true),
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

import pino, { type Logger, type TransportSingleOptions } from 'pino';
import type { Config } from '../config/index.js';

export type { Logger };

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

/**
 * Structured logs; secrets in request headers and bodies are redacted. With `asynchronous`
 * (the server) and no transport, lines go to stdout through an asynchronous destination: a
 * write never blocks the event loop, lines written while one write is in flight leave together,
 * and pino flushes what is left synchronously when the process exits. The CLI keeps synchronous
 * writes on stderr (createCliLogger).
 */
export function createLogger(level: string, transport?: TransportSingleOptions, asynchronous = false): Logger {
  const options = loggerOptions(level, transport);
  if (!asynchronous || transport || level === 'silent') return pino(options);
  return pino(options, pino.destination({ dest: 1, sync: false }));
}

/**
 * The CLI's logger: JSON lines on stderr (synchronous), so stdout carries only the command's
 * result and `npm run cli -- ... > file` or a pipe gets nothing else.
 */
export function createCliLogger(level: string): Logger {
  return pino(loggerOptions(level), pino.destination({ dest: 2, sync: true }));
}

function loggerOptions(level: string, transport?: TransportSingleOptions) {
  return {
    level,
    base: { service: 'wcs-partner-service' },
    transport,
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
  };
}

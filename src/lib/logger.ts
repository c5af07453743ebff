import pino, { type DestinationStream, type Logger, type TransportSingleOptions } from 'pino';
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
  return pino(options, asBytes(pino.destination({ dest: 1, sync: false, contentMode: 'buffer' })));
}

/**
 * pino's lines handed to its destination as bytes. A destination that collects text appends
 * each line to the text waiting for the write in flight and measures that whole text's bytes
 * again at every line (sonic-boom 4 and 5); with bytes it keeps a list and a count. A request
 * log line took 3.8 µs with text and 1.3 µs with bytes in a loop of 200 000, and the service
 * answered 3-5 % more cached reads a second (bench:http, docs/benchmarks.md, 2026-12-03). The
 * destination stays the one pino made, so pino still flushes it when the process exits.
 */
function asBytes(
  destination: ReturnType<typeof pino.destination>,
): DestinationStream & { flush(cb: () => void): void } {
  return {
    // sonic-boom's buffer mode takes Buffers (its typing says strings)
    write: (line: string) => destination.write(Buffer.from(line, 'utf8') as unknown as string),
    flush: (cb: () => void) => destination.flush(cb),
  };
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

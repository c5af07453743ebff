import type { NextFunction, Request, Response } from 'express';
import { validationFailed, type ErrorDetail } from '../lib/errors.js';

/**
 * Malformed input refused as a class at the edge, before authentication, rate limits and every
 * route (mounted by src/app.ts right after the JSON parser). Each refusal is 400 "Validation
 * failed" with details:
 * - a path segment or a query key or value with a control character (U+0000-U+001F, U+007F):
 *   no slug, token, username or filter contains one, and PostgreSQL text cannot hold U+0000;
 * - a JSON body holding U+0000 in any string or key, at any depth (tabs and newlines are fine);
 * - a JSON body that is not an object (`[]`, `"text"`, `42`, `null`).
 * A request without a JSON body gets `{}` as its body.
 */

/** Control characters of C0 and DEL (paths and query strings). */
const CONTROL = /[\u0000-\u001f\u007f]/;
const NUL = '\u0000';

/** The decoded path segments; undefined when the encoding is broken (the router answers 400 for that). */
function decodedSegments(path: string): string[] | undefined {
  try {
    return path.split('/').map((segment) => decodeURIComponent(segment));
  } catch {
    return undefined;
  }
}

function queryProblems(query: Record<string, unknown>): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  for (const [key, value] of Object.entries(query)) {
    // issue 23: `limit=5&limit=6` (an array with the simple parser) or `limit[]=5` / `limit[a]=5`
    // (a key with brackets): no route takes a list or an object in its query
    const bracket = key.indexOf('[');
    if (Array.isArray(value) || bracket > 0 || (value !== null && typeof value === 'object')) {
      const field = (bracket > 0 ? key.slice(0, bracket) : key).replace(/[\u0000-\u001f\u007f]/g, '?');
      details.push({ field, message: 'must be given once, as a single value' });
      continue;
    }
    const values = Array.isArray(value) ? value : [value];
    if (CONTROL.test(key) || values.some((v) => typeof v === 'string' && CONTROL.test(v))) {
      details.push({
        field: key.replace(/[\u0000-\u001f\u007f]/g, '?'),
        message: 'must not contain control characters',
      });
    }
  }
  return details;
}

/** Where a NUL sits in a parsed JSON value (`comment`, `heats[0].note`), walked without recursion. */
function firstNulIn(body: unknown): string | undefined {
  const stack: { value: unknown; path: string }[] = [{ value: body, path: '' }];
  while (stack.length > 0) {
    const { value, path } = stack.pop()!;
    if (typeof value === 'string') {
      if (value.includes(NUL)) return path || 'body';
    } else if (Array.isArray(value)) {
      value.forEach((item, i) => stack.push({ value: item, path: `${path}[${i}]` }));
    } else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        if (key.includes(NUL)) return path || 'body';
        stack.push({ value: item, path: path ? `${path}.${key}` : key });
      }
    }
  }
  return undefined;
}

export function inputGuard() {
  return (req: Request, _res: Response, next: NextFunction): void => {
    const path = req.path;
    // without a percent sign there is nothing to decode (the usual case)
    const segments = path.includes('%') ? decodedSegments(path) : [path];
    if (segments?.some((s) => CONTROL.test(s))) {
      throw validationFailed([{ field: 'path', message: 'must not contain control characters' }]);
    }
    const queryDetails = queryProblems(req.query as Record<string, unknown>);
    if (queryDetails.length > 0) throw validationFailed(queryDetails);

    // Express 5 leaves req.body undefined without a JSON body; handlers always see an object.
    if (req.body === undefined) req.body = {};
    else if (typeof req.body !== 'object' || req.body === null || Array.isArray(req.body)) {
      throw validationFailed([{ field: 'body', message: 'must be a JSON object' }]);
    }
    const nulAt = firstNulIn(req.body);
    if (nulAt !== undefined) throw validationFailed([{ field: nulAt, message: 'must not contain NUL characters' }]);
    next();
  };
}

interface PacketSocket {
  emit(event: 'error_message', payload: { error: string }): unknown;
}

/**
 * The same rule for Socket.IO events (`socket.use`, src/realtime/io.ts): a payload with U+0000
 * in any string or key never reaches a handler. The ack gets
 * `{ success: false, error: 'Validation failed', code: 'VALIDATION_ERROR' }` (without an ack:
 * `error_message`), like any refused payload.
 */
export function socketInputGuard(socket: PacketSocket) {
  return (packet: unknown[], next: (err?: Error) => void): void => {
    const args = packet.slice(1);
    const last = args[args.length - 1];
    const ack = typeof last === 'function' ? (last as (body: unknown) => void) : undefined;
    const payload = ack ? args.slice(0, -1) : args;
    if (firstNulIn(payload) === undefined) {
      next();
      return;
    }
    const { message: error, code } = validationFailed([]);
    if (ack) ack({ success: false, error, code });
    else socket.emit('error_message', { error });
  };
}

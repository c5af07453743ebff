import { checkSchema, type ParamSchema } from 'express-validator';
import type { WebrtcSignalInput, WebrtcSignalKind } from '../../realtime/types.js';
import { AppError } from '../../lib/errors.js';

/** Size limits of a relayed signal (bytes of UTF-8). A real SDP is 2-6 KB, a candidate ~200 B. */
export const MAX_SDP_BYTES = 16 * 1024;
export const MAX_CANDIDATE_BYTES = 2 * 1024;
export const SIGNAL_KINDS: readonly WebrtcSignalKind[] = ['offer', 'answer', 'ice-candidate', 'hangup'];

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const optionalOf = (v: unknown, type: 'string' | 'number') => v === undefined || v === null || typeof v === type;

function parseDescription(kind: 'offer' | 'answer', data: unknown) {
  if (!isObject(data) || data.type !== kind || typeof data.sdp !== 'string') {
    throw new AppError('INVALID_SIGNAL', { message: `${kind} data must be { type: '${kind}', sdp }` });
  }
  if (Buffer.byteLength(data.sdp, 'utf8') > MAX_SDP_BYTES)
    throw new AppError('SIGNAL_TOO_LARGE', { message: 'SDP larger than 16 KB' });
  return { type: kind, sdp: data.sdp };
}

function parseCandidate(data: unknown) {
  if (!isObject(data) || typeof data.candidate !== 'string') {
    throw new AppError('INVALID_SIGNAL', {
      message:
        'ice-candidate data must be an RTCIceCandidateInit { candidate, sdpMid?, sdpMLineIndex?, usernameFragment? }',
    });
  }
  const { candidate, sdpMid, sdpMLineIndex, usernameFragment } = data;
  if (
    !optionalOf(sdpMid, 'string') ||
    !optionalOf(sdpMLineIndex, 'number') ||
    !optionalOf(usernameFragment, 'string')
  ) {
    throw new AppError('INVALID_SIGNAL', { message: 'ice-candidate fields have the wrong type' });
  }
  // Only the RTCIceCandidateInit fields are relayed.
  const init = {
    candidate,
    sdpMid: sdpMid ?? null,
    sdpMLineIndex: sdpMLineIndex ?? null,
    usernameFragment: usernameFragment ?? null,
  };
  if (Buffer.byteLength(JSON.stringify(init), 'utf8') > MAX_CANDIDATE_BYTES) {
    throw new AppError('SIGNAL_TOO_LARGE', { message: 'ICE candidate larger than 2 KB' });
  }
  return init;
}

/** How deep hangup data may nest (objects and arrays; the data object itself is level 1). */
export const MAX_HANGUP_DEPTH = 8;

/** Whether `value` nests objects and arrays deeper than `max` levels, walked without recursion (before any serializing). */
function nestedDeeperThan(value: unknown, max: number): boolean {
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 1 }];
  while (stack.length > 0) {
    const { value: v, depth } = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth > max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push({ value: child, depth: depth + 1 });
  }
  return false;
}

/**
 * Hangup data is relayed only in a known shape: a plain JSON object nested at most
 * MAX_HANGUP_DEPTH levels and at most 2 KB serialized; what is relayed is its JSON copy (no
 * binary attachments). The depth is checked first, so a deep payload never reaches JSON.stringify.
 */
function parseHangup(data: unknown) {
  if (data === undefined || data === null) return null;
  if (!isObject(data)) throw new AppError('INVALID_SIGNAL', { message: 'hangup data must be an object when given' });
  if (nestedDeeperThan(data, MAX_HANGUP_DEPTH))
    throw new AppError('INVALID_SIGNAL', { message: `hangup data must be nested at most ${MAX_HANGUP_DEPTH} levels` });
  const json = JSON.stringify(data);
  if (Buffer.byteLength(json, 'utf8') > MAX_CANDIDATE_BYTES)
    throw new AppError('SIGNAL_TOO_LARGE', { message: 'hangup data larger than 2 KB' });
  return JSON.parse(json) as Record<string, unknown>;
}

/**
 * Shape and size checks of a `webrtc_signal` payload; the SDP itself is never parsed.
 * Check order: object, matchSlug, kind, then the data of that kind.
 */
export function parseSignal(payload: unknown): WebrtcSignalInput {
  if (!isObject(payload))
    throw new AppError('INVALID_SIGNAL', { message: 'payload must be { matchSlug, kind, data }' });
  const { matchSlug, kind, data } = payload;
  if (typeof matchSlug !== 'string' || matchSlug.length < 1 || matchSlug.length > 50) {
    throw new AppError('INVALID_SIGNAL', { message: 'matchSlug must be a string of 1-50 characters' });
  }
  switch (kind) {
    case 'offer':
    case 'answer':
      return { matchSlug, kind, data: parseDescription(kind, data) };
    case 'ice-candidate':
      return { matchSlug, kind, data: parseCandidate(data) };
    case 'hangup':
      return { matchSlug, kind, data: parseHangup(data) };
    default:
      throw new AppError('UNKNOWN_SIGNAL_KIND');
  }
}

// ---------------------------------------------------------------------------------------------
// Transfers (HTTP)

export const TRANSFER_UPDATE_STATUSES = ['completed', 'failed', 'cancelled'] as const;

/** Control characters (U+0000-U+001F, U+007F-U+009F) and bidirectional formatting characters. */
const UNSAFE_FILE_NAME_CHARACTER = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

export interface CreateTransferInput {
  fileName: string;
  size: number;
  sha256: string;
}

export interface UpdateTransferInput {
  status: (typeof TRANSFER_UPDATE_STATUSES)[number];
}

const slugParam: ParamSchema = {
  in: ['params'],
  isString: true,
  isLength: { options: { min: 1, max: 50 } },
  errorMessage: 'slug must be 1-50 characters',
};

export const createTransferSchema = checkSchema({
  slug: slugParam,
  fileName: {
    in: ['body'],
    exists: { options: { values: 'null' }, errorMessage: 'fileName is required', bail: true },
    isString: { errorMessage: 'fileName must be a string', bail: true },
    trim: true,
    isLength: { options: { min: 1, max: 255 }, errorMessage: 'fileName must be 1-255 characters', bail: true },
    // a control character, or a bidirectional override that disguises the extension ("evil\u202Egpj.exe")
    custom: {
      options: (v: string) => !UNSAFE_FILE_NAME_CHARACTER.test(v),
      errorMessage: 'fileName must not contain control or bidirectional formatting characters',
    },
  },
  size: {
    in: ['body'],
    exists: { options: { values: 'null' }, errorMessage: 'size is required', bail: true },
    custom: { options: (v: unknown) => Number.isSafeInteger(v) && (v as number) > 0 },
    errorMessage: 'size must be a positive integer (bytes)',
  },
  sha256: {
    in: ['body'],
    exists: { options: { values: 'null' }, errorMessage: 'sha256 is required', bail: true },
    isString: { errorMessage: 'sha256 must be a string', bail: true },
    matches: { options: /^[0-9a-fA-F]{64}$/, errorMessage: 'sha256 must be 64 hexadecimal characters' },
    customSanitizer: { options: (v: string) => v.toLowerCase() },
  },
});

export const transferIdSchema = checkSchema({
  slug: slugParam,
  id: {
    in: ['params'],
    isInt: { options: { min: 1, max: 2_147_483_647 } },
    toInt: true,
    errorMessage: 'id must be a positive integer',
  },
});

export const updateTransferSchema = checkSchema({
  status: {
    in: ['body'],
    isIn: { options: [[...TRANSFER_UPDATE_STATUSES]] },
    errorMessage: `status must be one of ${TRANSFER_UPDATE_STATUSES.join(', ')}`,
  },
});

export const matchSlugSchema = checkSchema({ slug: slugParam });

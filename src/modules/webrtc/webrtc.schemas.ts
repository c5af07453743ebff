import { checkSchema, type ParamSchema } from 'express-validator';
import type { WebrtcSignalInput, WebrtcSignalKind } from '../../realtime/types.js';
import { webrtcErrors } from './webrtc.errors.js';

/** Size limits of a relayed signal (bytes of UTF-8). A real SDP is 2-6 KB, a candidate ~200 B. */
export const MAX_SDP_BYTES = 16 * 1024;
export const MAX_CANDIDATE_BYTES = 2 * 1024;
export const SIGNAL_KINDS: readonly WebrtcSignalKind[] = ['offer', 'answer', 'ice-candidate', 'hangup'];

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const optionalOf = (v: unknown, type: 'string' | 'number') => v === undefined || v === null || typeof v === type;

function parseDescription(kind: 'offer' | 'answer', data: unknown) {
  if (!isObject(data) || data.type !== kind || typeof data.sdp !== 'string') {
    throw webrtcErrors.invalidSignal(`${kind} data must be { type: '${kind}', sdp }`);
  }
  if (Buffer.byteLength(data.sdp, 'utf8') > MAX_SDP_BYTES) throw webrtcErrors.signalTooLarge('SDP larger than 16 KB');
  return { type: kind, sdp: data.sdp };
}

function parseCandidate(data: unknown) {
  if (!isObject(data) || typeof data.candidate !== 'string') {
    throw webrtcErrors.invalidSignal('ice-candidate data must be an RTCIceCandidateInit { candidate, sdpMid?, sdpMLineIndex?, usernameFragment? }');
  }
  const { candidate, sdpMid, sdpMLineIndex, usernameFragment } = data;
  if (!optionalOf(sdpMid, 'string') || !optionalOf(sdpMLineIndex, 'number') || !optionalOf(usernameFragment, 'string')) {
    throw webrtcErrors.invalidSignal('ice-candidate fields have the wrong type');
  }
  // Only the RTCIceCandidateInit fields are relayed.
  const init = { candidate, sdpMid: sdpMid ?? null, sdpMLineIndex: sdpMLineIndex ?? null, usernameFragment: usernameFragment ?? null };
  if (Buffer.byteLength(JSON.stringify(init), 'utf8') > MAX_CANDIDATE_BYTES) {
    throw webrtcErrors.signalTooLarge('ICE candidate larger than 2 KB');
  }
  return init;
}

/** Objects and arrays nested in hangup data (the data object itself is level 1). */
export const MAX_HANGUP_DEPTH = 8;

/**
 * How `value` nests objects/arrays, walked without recursion and BEFORE anything serialises it (a
 * deeply nested payload would overflow JSON.stringify's stack: issue 23): 'deep' past `max`
 * levels; 'large' past 4096 objects (far more than 2 KB can hold); else 'ok'.
 */
function nesting(value: unknown, max: number): 'ok' | 'deep' | 'large' {
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 1 }];
  for (let visited = 0; stack.length > 0; visited++) {
    if (visited >= 4096) return 'large';
    const { value: current, depth } = stack.pop()!;
    if (depth > max) return 'deep';
    for (const child of Object.values(current as object)) {
      if (typeof child === 'object' && child !== null) stack.push({ value: child, depth: depth + 1 });
    }
  }
  return 'ok';
}

function parseHangup(data: unknown) {
  if (data === undefined || data === null) return null;
  if (!isObject(data)) throw webrtcErrors.invalidSignal('hangup data must be an object when given');
  const shape = nesting(data, MAX_HANGUP_DEPTH);
  if (shape === 'deep') throw webrtcErrors.invalidSignal(`hangup data must not nest deeper than ${MAX_HANGUP_DEPTH} levels`);
  if (shape === 'large') throw webrtcErrors.signalTooLarge('hangup data larger than 2 KB');
  if (Buffer.byteLength(JSON.stringify(data), 'utf8') > MAX_CANDIDATE_BYTES) throw webrtcErrors.signalTooLarge('hangup data larger than 2 KB');
  return data;
}

/**
 * Shape and size checks of a `webrtc_signal` payload; the SDP itself is never parsed.
 * Check order: object, matchSlug, kind, then the data of that kind.
 */
export function parseSignal(payload: unknown): WebrtcSignalInput {
  if (!isObject(payload)) throw webrtcErrors.invalidSignal('payload must be { matchSlug, kind, data }');
  const { matchSlug, kind, data } = payload;
  if (typeof matchSlug !== 'string' || matchSlug.length < 1 || matchSlug.length > 50) {
    throw webrtcErrors.invalidSignal('matchSlug must be a string of 1-50 characters');
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
      throw webrtcErrors.unknownSignalKind();
  }
}

// ---------------------------------------------------------------------------------------------
// Transfers (HTTP)

export const TRANSFER_UPDATE_STATUSES = ['completed', 'failed', 'cancelled'] as const;

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
    isLength: { options: { min: 1, max: 255 }, errorMessage: 'fileName must be 1-255 characters' },
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

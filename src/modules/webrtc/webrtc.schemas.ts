import type { WebrtcSignalInput, WebrtcSignalKind } from '../../realtime/types.js';
import { AppError } from '../../lib/errors.js';
import { defineInput, definePayload, f, type InputOf } from '../../middleware/input.js';
import { INT32_MAX } from '../../middleware/validators.js';

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
function parseSignal(payload: unknown): WebrtcSignalInput {
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

/**
 * The `webrtc_signal` payload, checked as a whole by parseSignal: its refusals keep their own
 * codes (INVALID_SIGNAL, SIGNAL_TOO_LARGE, UNKNOWN_SIGNAL_KIND), not "Validation failed".
 */
export const webrtcSignalInput = definePayload(
  'webrtcSignal',
  f.parsed<WebrtcSignalInput>(
    {
      type: 'object',
      additionalProperties: false,
      required: ['matchSlug', 'kind'],
      properties: {
        matchSlug: { type: 'string', minLength: 1, maxLength: 50 },
        kind: { enum: [...SIGNAL_KINDS] },
        data: {},
      },
    },
    parseSignal,
  ),
);

// ---------------------------------------------------------------------------------------------
// Transfers (HTTP)

export const TRANSFER_UPDATE_STATUSES = ['completed', 'failed', 'cancelled'] as const;

/** Control characters (U+0000-U+001F, U+007F-U+009F) and bidirectional formatting characters. */
const UNSAFE_FILE_NAME_CHARACTER = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/** `:slug` of a match (1-50 characters, else 400; an unknown one is the service's 404). */
const matchSlug = f.custom<string>(
  { type: 'string', minLength: 1, maxLength: 50, description: 'random match slug' },
  (chain) =>
    chain
      .isString()
      .withMessage('slug must be 1-50 characters')
      .bail()
      .isLength({ min: 1, max: 50 })
      .withMessage('slug must be 1-50 characters'),
);

export const matchTransfersInput = defineInput('matchTransfers', { params: { slug: matchSlug } });
export type MatchTransfersInput = InputOf<typeof matchTransfersInput>;

/** POST /matches/:slug/transfers */
export const createTransferInput = defineInput('createTransfer', {
  params: { slug: matchSlug },
  body: {
    fileName: f.custom<string>(
      {
        type: 'string',
        minLength: 1,
        maxLength: 255,
        description:
          'trimmed; a control character (U+0000-U+001F, U+007F-U+009F) or a bidirectional formatting character (U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069) → 400 VALIDATION_ERROR naming fileName',
      },
      (chain) =>
        chain
          .exists({ values: 'null' })
          .withMessage('fileName is required')
          .bail()
          .isString()
          .withMessage('fileName must be a string')
          .bail()
          .trim()
          .isLength({ min: 1, max: 255 })
          .withMessage('fileName must be 1-255 characters')
          .bail()
          // a control character, or a bidirectional override that disguises the extension ("evil\u202Egpj.exe")
          .custom((v: string) => !UNSAFE_FILE_NAME_CHARACTER.test(v))
          .withMessage('fileName must not contain control or bidirectional formatting characters'),
    ),
    size: f.custom<number>(
      {
        type: 'integer',
        minimum: 1,
        maximum: Number.MAX_SAFE_INTEGER,
        description: 'bytes (a JSON number, not a string)',
      },
      (chain) =>
        chain
          .exists({ values: 'null' })
          .withMessage('size is required')
          .bail()
          .custom((v: unknown) => Number.isSafeInteger(v) && (v as number) > 0)
          .withMessage('size must be a positive integer (bytes)'),
    ),
    sha256: f.custom<string>({ type: 'string', pattern: '^[0-9a-fA-F]{64}$' }, (chain) =>
      chain
        .exists({ values: 'null' })
        .withMessage('sha256 is required')
        .bail()
        .isString()
        .withMessage('sha256 must be a string')
        .bail()
        .matches(/^[0-9a-fA-F]{64}$/)
        .withMessage('sha256 must be 64 hexadecimal characters')
        .customSanitizer((v: string) => v.toLowerCase()),
    ),
  },
});
export type CreateTransferInput = InputOf<typeof createTransferInput>;

/** PATCH /matches/:slug/transfers/:id */
export const updateTransferInput = defineInput('updateTransfer', {
  params: {
    slug: matchSlug,
    id: f.custom<number>({ type: 'integer', minimum: 1, maximum: INT32_MAX, description: 'transfer id' }, (chain) =>
      chain.isInt({ min: 1, max: INT32_MAX }).withMessage('id must be a positive integer').toInt(),
    ),
  },
  body: {
    status: f.custom<(typeof TRANSFER_UPDATE_STATUSES)[number]>(
      { type: 'string', enum: [...TRANSFER_UPDATE_STATUSES] },
      (chain) =>
        chain
          .isIn([...TRANSFER_UPDATE_STATUSES])
          .withMessage(`status must be one of ${TRANSFER_UPDATE_STATUSES.join(', ')}`),
    ),
  },
});
export type UpdateTransferInput = InputOf<typeof updateTransferInput>;

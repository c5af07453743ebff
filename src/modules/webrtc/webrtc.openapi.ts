import { array, dataOf, int, json, listOf, obj, operation, ref, str } from '../../docs/openapi-helpers.js';
import { createTransferInput, matchTransfersInput, updateTransferInput } from './webrtc.schemas.js';

/**
 * OpenAPI paths of the video hand-off (merged by src/docs/openapi.ts). The real-time half
 * (`webrtc_signal`, `transfer_updated`) is in the document's `x-socket-io` section
 * (src/docs/socket.openapi.ts) and docs/api.md "Video hand-off between recording partners". Choices made where the
 * contract is silent are marked "Decision:".
 */

const iceServer = {
  ...obj(
    {
      urls: array(str),
      username: { type: 'string', description: 'TURN only: `<unix expiry>:<userId>`' },
      credential: { type: 'string', description: 'TURN only: base64(HMAC-SHA1(TURN_SECRET, username))' },
    },
    ['username', 'credential'],
  ),
  description: 'An RTCIceServer, ready for `new RTCPeerConnection({ iceServers })`',
};

const realtime = [
  '**Signaling (Socket.IO, same connection as every other event).** Client → service `webrtc_signal`',
  '`{ matchSlug, kind, data }`: `offer` / `answer` with data `{ type, sdp }` (type equal to kind, sdp ≤ 16 KB of UTF-8);',
  '`ice-candidate` with data an RTCIceCandidateInit `{ candidate, sdpMid?, sdpMLineIndex?, usernameFragment? }`',
  '(≤ 2 KB serialized; only these four fields are relayed); `hangup` with optional object data (nested at most 8 levels of objects and',
  'arrays, checked before serializing, and ≤ 2 KB serialized; its JSON copy is relayed, null when absent; deeper → INVALID_SIGNAL).',
  'Relayed to every socket of the other member (`user_<id>`) as `webrtc_signal` `{ matchSlug, from: <user summary>, kind, data }`.',
  'Ack `{ success: true }` or `{ success: false, error, code }`: "Match not found" MATCH_NOT_FOUND (unknown slug or not a member),',
  '"Match is not accepted" MATCH_NOT_ACCEPTED (pending), UNKNOWN_SIGNAL_KIND, SIGNAL_TOO_LARGE ("SDP larger than 16 KB",',
  '"ICE candidate larger than 2 KB"), INVALID_SIGNAL (wrong shape), "Too many signals, slow down" SIGNAL_RATE_LIMITED.',
  "Decision: the flood limit is per user (all the user's sockets together), a token bucket of 100 refilled at 50 per second;",
  'it is checked before any database work. Per match (both members together) at most 256 KiB of signal data in a burst, refilled at',
  '64 KiB per second, else SIGNAL_RATE_LIMITED "Too much signal data for this match, slow down". Nothing is stored; a partner without a connected socket receives nothing (the ack is still success).',
  '`transfer_updated` (service → both members) carries the transfer object after every create and status change.',
].join(' ');

export const webrtcOpenApi: Record<string, unknown> = {
  '/webrtc/ice-servers': {
    get: operation('get', {
      tags: ['video hand-off'],
      summary: 'ICE servers for a browser-to-browser video hand-off (STUN, TURN with time-limited credentials)',
      description: [
        '`data: { iceServers: RTCIceServer[], ttlSeconds }`. STUN_URLS give one entry without credentials; TURN_URLS with',
        'TURN_SECRET give one entry with credentials of the TURN REST API scheme implemented by coturn `use-auth-secret`:',
        'username `<unix expiry>:<userId>` with expiry = now + TURN_TTL_SECONDS (default 3600), credential',
        'base64(HMAC-SHA1(TURN_SECRET, username)). Without TURN configuration STUN only; without either an empty list',
        '(LAN-only deployment: host candidates only). Decision: answered with `Cache-Control: no-store`; fetch it again',
        'before `ttlSeconds` run out. Any authenticated user may ask; the TURN entry (with credentials) is given only to a',
        'member of at least one match with status `accepted` or `completed` (any event); everyone else gets the STUN entries',
        'only (200, same `ttlSeconds`): pending, rejected and deleted matches do not count.',
        realtime,
      ].join(' '),
      access: 'user',
      ok: { '200': json(dataOf(obj({ iceServers: array(iceServer), ttlSeconds: int })), 'The ICE servers') },
    }),
  },
  '/matches/{slug}/transfers': {
    post: operation('post', {
      tags: ['video hand-off'],
      summary: 'Record a video hand-off offered to the other member',
      description: [
        'The caller is the sender, the other member the receiver; members of an accepted or completed match only.',
        'Both members receive `transfer_updated`. Decision: no verified e-mail needed (the match already required one);',
        '`sha256` is stored lower-case. At most 10 transfers with status `offered` per match (both directions together): one more →',
        '429 TOO_MANY_OPEN_TRANSFERS with `Retry-After: 60`; completing, failing or cancelling one frees a place.',
        'A completed match of a blocked pair (docs/moderation.md) takes no new transfer: 403 USER_BLOCKED (existing records stay readable).',
      ].join(' '),
      access: 'user',
      parameters: createTransferInput.openapi.parameters,
      body: createTransferInput.openapi.body,
      ok: { '201': json(dataOf(ref('Transfer')), 'The record, status offered') },
      errors: {
        400: ['VALIDATION_ERROR', 'MATCH_NOT_ACCEPTED'],
        403: ['USER_BLOCKED'],
        404: ['MATCH_NOT_FOUND'],
        429: ['RATE_LIMITED', 'TOO_MANY_OPEN_TRANSFERS'],
      },
    }),
    get: operation('get', {
      tags: ['video hand-off'],
      summary: "The match's hand-off records, newest first",
      description:
        'Members only. Decision: at most the 100 newest records, not paged; a pending match has an empty list.',
      access: 'user',
      parameters: matchTransfersInput.openapi.parameters,
      ok: { '200': json(listOf(ref('Transfer'))) },
      errors: { 400: ['VALIDATION_ERROR'], 404: ['MATCH_NOT_FOUND'] },
    }),
  },
  '/matches/{slug}/transfers/{id}': {
    patch: operation('patch', {
      tags: ['video hand-off'],
      summary: 'Finish a hand-off: completed (the receiver), failed or cancelled (either member)',
      description: [
        'Only from `offered`; the change is conditional, so of two racing updates exactly one wins. Check order:',
        'membership (404 "Match not found"), transfer of this match (404 "Transfer not found"), completer is the receiver',
        '(403), still offered (400). Both members receive `transfer_updated`. Completed transfers count as "videos received"',
        'for the receiver (`videosReceived` on the match object and on each dashboard event).',
      ].join(' '),
      access: 'user',
      parameters: updateTransferInput.openapi.parameters,
      body: updateTransferInput.openapi.body,
      ok: { '200': json(dataOf(ref('Transfer')), 'The updated record') },
      errors: {
        400: ['VALIDATION_ERROR', 'TRANSFER_NOT_OFFERED'],
        403: ['NOT_TRANSFER_RECEIVER'],
        404: ['MATCH_NOT_FOUND', 'TRANSFER_NOT_FOUND'],
      },
    }),
  },
};

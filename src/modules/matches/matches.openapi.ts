import { bool, dataOf, json, listOf, obj, operation, ref } from '../../docs/openapi-helpers.js';
import {
  createMatchInput,
  listMatchesInput,
  matchMessagesInput,
  matchSlugInput,
  rateMatchInput,
} from './matches.schemas.js';

/**
 * OpenAPI paths of this feature (merged by src/docs/openapi.ts).
 * Choices made here where the interface specification is silent are marked "Decision:".
 */
const slugParams = matchSlugInput.openapi.parameters;

export const matchesOpenApi: Record<string, unknown> = {
  '/matches': {
    post: operation('post', {
      tags: ['matches'],
      summary: 'Request a partner match at an event (verified e-mail required)',
      description: [
        'Both users must be participants of the event. One match per pair of users and event, whichever',
        'direction (database unique index; 20 simultaneous identical requests create one match).',
        'At most 20 pending outgoing requests per user, and at most 10 requests in a burst per requester, refilled at 10 a minute',
        '(429 MATCH_REQUESTS_RATE_LIMITED; a refused duplicate does not count). After the commit the target receives',
        '`match_request_received` `{ matchSlug, event: { slug, name }, from: <user summary> }` in `user_<id>`.',
        'Check order: event 404 → requester participant 403 → self 400 → target participant 400 → blocked pair 403 USER_BLOCKED → pending cap 429 → request rate 429 → duplicate 409.',
        'A blocked pair (either user blocked the other; docs/moderation.md) cannot request: 403 USER_BLOCKED whoever asks and whoever blocked.',
      ].join(' '),
      access: 'user',
      body: createMatchInput.openapi.body,
      ok: { '201': json(dataOf(ref('Match')), 'The created match (status pending)') },
      errors: {
        400: ['VALIDATION_ERROR', 'MATCH_SELF', 'TARGET_NOT_PARTICIPANT'],
        403: ['NOT_PARTICIPANT', 'EMAIL_NOT_VERIFIED', 'USER_BLOCKED'],
        404: ['EVENT_NOT_FOUND'],
        409: ['MATCH_EXISTS'],
        429: ['TOO_MANY_PENDING_MATCHES', 'MATCH_REQUESTS_RATE_LIMITED'],
      },
    }),
    get: operation('get', {
      tags: ['matches'],
      summary: "The caller's matches, newest first (both directions; not paged)",
      access: 'user',
      parameters: listMatchesInput.openapi.parameters,
      ok: { '200': json(listOf(ref('Match'))) },
      errors: { 400: ['VALIDATION_ERROR'], 404: ['EVENT_NOT_FOUND'] },
    }),
  },
  '/matches/{slug}': {
    get: operation('get', {
      tags: ['matches'],
      summary: 'One match of the caller, with hasRated (the caller already rated it)',
      description:
        '"Match not found" for an unknown slug, or when the caller is not one of the two members (no existence leak).',
      access: 'user',
      parameters: slugParams,
      ok: { '200': json(dataOf(ref('MatchWithRated'))) },
      errors: { 404: ['MATCH_NOT_FOUND'] },
    }),
    delete: operation('delete', {
      tags: ['matches'],
      summary: 'Reject (target of a pending match) or cancel (anyone of the two, any state)',
      description: [
        'The match is deleted with its private room and messages; ratings already given stay (matchId becomes null).',
        'The other member receives `match_cancelled` `{ matchSlug, event, from: <caller summary> }`.',
        'Decision: the answer is `{ success: true, message: "Match rejected" | "Match cancelled" }`; a completed match can be deleted too.',
      ].join(' '),
      access: 'user',
      parameters: slugParams,
      ok: { '200': json(obj({ success: { const: true }, message: { enum: ['Match rejected', 'Match cancelled'] } })) },
      errors: { 404: ['MATCH_NOT_FOUND'] },
    }),
  },
  '/matches/{slug}/accept': {
    put: operation('put', {
      tags: ['matches'],
      summary: 'Accept a pending match (target only; verified e-mail required)',
      description:
        'Sets status accepted and respondedAt and creates the private chat room in one transaction; of simultaneous accepts one wins. The requester receives `match_accepted`.',
      access: 'user',
      parameters: slugParams,
      ok: { '200': json(dataOf(ref('Match')), 'The updated match (status accepted, roomId set)') },
      errors: { 400: ['MATCH_NOT_PENDING'], 403: ['NOT_MATCH_TARGET', 'EMAIL_NOT_VERIFIED'], 404: ['MATCH_NOT_FOUND'] },
    }),
  },
  '/matches/{slug}/messages': {
    get: operation('get', {
      tags: ['matches'],
      summary: 'Private chat history of the match (members only)',
      description: [
        'Paging like the event messages: the newest `limit` messages older than `before`, returned oldest first; `hasMore` is true when a full page came back. Decision: a pending match (no room yet) answers an empty page, not an error.',
        'Real-time side (Socket.IO): `join_private_room({ matchId })` joins `match_<id>` (members of an accepted or completed match; ack data `{ matchId, roomId, messages }`, the last 20);',
        '`send_private_message({ matchId, content })` → `private_message` (the message plus matchId) to `match_<id>`. Refusals (ack `{ success: false, error, code }` or `error_message`), in order:',
        '"matchId must be a positive integer", the content rules of the event chat, "You are sending messages too fast" (CHAT_FLOOD; one limit per user shared with the event chat, 5 messages/s, bursts of 10),',
        '"Match not found" (also for non-members), "Private chat is available only for accepted matches", "Email verification required".',
      ].join(' '),
      access: 'user',
      parameters: matchMessagesInput.openapi.parameters,
      ok: { '200': json(listOf(ref('Message'), { hasMore: bool })) },
      errors: { 400: ['VALIDATION_ERROR'], 404: ['MATCH_NOT_FOUND'] },
    }),
  },
  '/matches/{slug}/ratings': {
    post: operation('post', {
      tags: ['matches'],
      summary: 'Rate the partner of an accepted match (verified e-mail required)',
      description: [
        'One rating per rater, rated user and event, across matches (a second one, on this match or on another match of the',
        'same two users at the same event, → 409 ALREADY_RATED), enforced by the database. When both members have rated, the match',
        'becomes completed (exactly once, also when both rate at the same moment). The comment is plain text,',
        'stored exactly as sent. Decision: score must be a JSON integer (a string "4" is refused).',
      ].join(' '),
      access: 'user',
      parameters: rateMatchInput.openapi.parameters,
      body: rateMatchInput.openapi.body,
      ok: { '201': json(dataOf(ref('Rating')), 'The rating with rater, rated and event') },
      errors: {
        400: ['VALIDATION_ERROR', 'MATCH_NOT_ACCEPTED'],
        403: ['EMAIL_NOT_VERIFIED'],
        404: ['MATCH_NOT_FOUND'],
        409: ['ALREADY_RATED'],
      },
    }),
  },
};

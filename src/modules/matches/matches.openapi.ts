/**
 * OpenAPI paths of the matches feature (merged by src/docs/openapi.ts). Choices the tests in
 * tests/matches hold beyond the basic contract are marked "Decision:".
 */
const err = (description: string) => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } });
const slugParam = { name: 'slug', in: 'path', required: true, schema: { type: 'string' }, description: 'random match slug' };
const notFound = err('"Match not found": unknown slug, or the caller is not one of the two members (no existence leak)');

const userSummary = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    username: { type: 'string' },
    avatar: { type: 'string' },
    firstName: { type: ['string', 'null'] },
    lastName: { type: ['string', 'null'] },
  },
};

const match = {
  type: 'object',
  description: 'A match seen by the caller. user1 of the record is the requester (isInitiator true for them).',
  properties: {
    id: { type: 'integer', description: 'internal id, used only for the real-time events (join_private_room, send_private_message)' },
    slug: { type: 'string', description: 'random alphanumeric, 16 characters' },
    status: { enum: ['pending', 'accepted', 'completed'] },
    source: { enum: ['manual', 'auto'], description: 'auto: created by accepting a recording suggestion' },
    createdAt: { type: 'string', format: 'date-time' },
    respondedAt: { type: ['string', 'null'], format: 'date-time', description: 'when the match was accepted' },
    event: { type: 'object', properties: { id: { type: 'integer' }, slug: { type: 'string' }, name: { type: 'string' } } },
    partner: userSummary,
    isInitiator: { type: 'boolean' },
    roomId: { type: ['integer', 'null'], description: 'private chat room; null while pending' },
  },
};

const message = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    roomId: { type: 'integer' },
    userId: { type: 'integer' },
    username: { type: 'string' },
    avatar: { type: 'string' },
    content: { type: 'string' },
    type: { type: 'string' },
    createdAt: { type: 'string', format: 'date-time' },
  },
};

const rating = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    matchId: { type: ['integer', 'null'] },
    raterId: { type: 'integer' },
    ratedId: { type: 'integer' },
    eventId: { type: 'integer' },
    score: { type: 'integer', minimum: 1, maximum: 5 },
    comment: { type: ['string', 'null'] },
    wouldCollaborateAgain: { type: ['boolean', 'null'] },
    createdAt: { type: 'string', format: 'date-time' },
    rater: { type: 'object', properties: { id: { type: 'integer' }, username: { type: 'string' }, avatar: { type: 'string' } } },
    rated: { type: 'object', properties: { id: { type: 'integer' }, username: { type: 'string' }, avatar: { type: 'string' } } },
    event: { type: 'object', properties: { id: { type: 'integer' }, slug: { type: 'string' }, name: { type: 'string' } } },
  },
};

const ok = (description: string, data: unknown) => ({
  description,
  content: { 'application/json': { schema: { type: 'object', properties: { success: { const: true }, data } } } },
});

export const matchesOpenApi: Record<string, unknown> = {
  '/matches': {
    post: {
      tags: ['matches'],
      summary: 'Request a partner match at an event (verified e-mail required)',
      description: [
        'Both users must be participants of the event. One match per pair of users and event, whichever',
        'direction (database unique index; 20 simultaneous identical requests create one match).',
        'At most 20 pending outgoing requests per user. After the commit the target receives',
        '`match_request_received` `{ matchSlug, event: { slug, name }, from: <user summary> }` in `user_<id>`.',
      ].join(' '),
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: {
              type: 'object',
              required: ['targetUserId', 'eventSlug'],
              properties: { targetUserId: { type: 'integer', minimum: 1 }, eventSlug: { type: 'string', maxLength: 50 } },
            },
          },
        },
      },
      responses: {
        '201': ok('The created match (status pending)', match),
        '400': err('"Validation failed"; "You cannot create a match with yourself"; "Target user is not a participant of this event" (also for an unknown user id)'),
        '403': err('"You must be a participant of this event" (requester); "Email verification required"'),
        '404': err('"Event not found"'),
        '409': err('"Match already exists"'),
        '429': err('"You can have at most 20 pending match requests" (code TOO_MANY_PENDING_MATCHES)'),
      },
    },
    get: {
      tags: ['matches'],
      summary: "The caller's matches, newest first",
      parameters: [
        { name: 'eventSlug', in: 'query', schema: { type: 'string' }, description: 'Decision: an unknown slug answers 404 "Event not found" (not an empty list)' },
        { name: 'status', in: 'query', schema: { enum: ['pending', 'accepted', 'completed'] } },
      ],
      responses: {
        '200': { description: '`{ success, count, data: [match] }` (both directions; not paged)' },
        '400': err('"Validation failed" for an unknown status'),
        '404': err('"Event not found"'),
      },
    },
  },
  '/matches/{slug}': {
    get: {
      tags: ['matches'],
      summary: 'One match of the caller, with hasRated',
      parameters: [slugParam],
      responses: {
        '200': ok('The match plus `hasRated` (the caller already rated it)', { allOf: [match, { type: 'object', properties: { hasRated: { type: 'boolean' } } }] }),
        '404': notFound,
      },
    },
    delete: {
      tags: ['matches'],
      summary: 'Reject (target of a pending match) or cancel (anyone of the two, any state)',
      description: [
        'The match is deleted with its private room and messages; ratings already given stay (matchId becomes null).',
        'The other member receives `match_cancelled` `{ matchSlug, event, from: <caller summary> }`.',
        'Decision: the answer is `{ success: true, message: "Match rejected" | "Match cancelled" }`; a completed match can be deleted too.',
      ].join(' '),
      parameters: [slugParam],
      responses: { '200': { description: '`{ success: true, message }`' }, '404': notFound },
    },
  },
  '/matches/{slug}/accept': {
    put: {
      tags: ['matches'],
      summary: 'Accept a pending match (target only; verified e-mail required)',
      description:
        'Sets status accepted and respondedAt and creates the private chat room in one transaction; of simultaneous accepts one wins. The requester receives `match_accepted`.',
      parameters: [slugParam],
      responses: {
        '200': ok('The updated match (status accepted, roomId set)', match),
        '400': err('"Match is not pending"'),
        '403': err('"Only the invited user can accept this match" (the requester); "Email verification required"'),
        '404': notFound,
      },
    },
  },
  '/matches/{slug}/messages': {
    get: {
      tags: ['matches'],
      summary: 'Private chat history of the match (members only)',
      description:
        [
          'Paging like the event messages: the newest `limit` messages older than `before`, returned oldest first; `hasMore` is true when a full page came back. Decision: a pending match (no room yet) answers an empty page, not an error.',
          'Real-time side (Socket.IO): `join_private_room({ matchId })` joins `match_<id>` (members of an accepted or completed match; ack data `{ matchId, roomId, messages }`, the last 20);',
          '`send_private_message({ matchId, content })` → `private_message` (the message plus matchId) to `match_<id>`. Refusals (ack `{ success: false, error, code }` or `error_message`), in order:',
          '"matchId must be a positive integer", the content rules of the event chat, "You are sending messages too fast" (CHAT_FLOOD; one limit per user shared with the event chat, 5 messages/s, bursts of 10),',
          '"Match not found" (also for non-members), "Private chat is available only for accepted matches", "Email verification required".',
        ].join(' '),
      parameters: [
        slugParam,
        { name: 'before', in: 'query', schema: { type: 'integer', minimum: 1 }, description: 'message id' },
        { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } },
      ],
      responses: {
        '200': {
          description: '`{ success: true, count, data: [message], hasMore }`',
          content: { 'application/json': { schema: { type: 'object', properties: { success: { const: true }, count: { type: 'integer' }, data: { type: 'array', items: message }, hasMore: { type: 'boolean' } } } } },
        },
        '400': err('"Validation failed" (before/limit)'),
        '404': notFound,
      },
    },
  },
  '/matches/{slug}/ratings': {
    post: {
      tags: ['matches'],
      summary: 'Rate the partner of an accepted match (verified e-mail required)',
      description: [
        'One rating per (match, rater, rated), enforced by the database. When both members have rated, the match',
        'becomes completed (exactly once, also when both rate at the same moment). The comment is plain text,',
        'stored exactly as sent. Decision: score must be a JSON integer (a string "4" is refused).',
      ].join(' '),
      parameters: [slugParam],
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: {
              type: 'object',
              required: ['score'],
              properties: {
                score: { type: 'integer', minimum: 1, maximum: 5 },
                comment: { type: ['string', 'null'], maxLength: 500 },
                wouldCollaborateAgain: { type: ['boolean', 'null'] },
              },
            },
          },
        },
      },
      responses: {
        '201': ok('The rating with rater, rated and event', rating),
        '400': err('"Validation failed"; "Only accepted matches can be rated" (pending match)'),
        '403': err('"Email verification required"'),
        '404': notFound,
        '409': err('"You have already rated this match"'),
      },
    },
  },
};

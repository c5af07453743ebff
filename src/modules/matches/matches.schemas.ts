import { defineInput, f, type InputOf } from '../../middleware/input.js';
import { INT32_MAX, isPositiveInt32 } from '../../middleware/validators.js';
import { messageContent, messagePageQuery } from '../chat/chat.schemas.js';

/**
 * The inputs of the matches feature, each declared once (src/middleware/input.ts): the router
 * validates with them, the services take their types, the OpenAPI document shows them, and the
 * private chat's socket handlers parse their payloads with them. Messages are those the
 * interface specification and the tests quote.
 */

export const MATCH_STATUSES = ['pending', 'accepted', 'completed'] as const;
export type MatchStatus = (typeof MATCH_STATUSES)[number];

/** `:slug` of the match routes (an unknown slug is the service's 404). */
const matchSlug = f.slug().describe('random match slug');

/** An event slug given in a body or a query: trimmed, 1-50 characters. */
const eventSlug = (required: boolean) =>
  f.custom<string>({ type: 'string', minLength: 1, maxLength: 50 }, (chain) =>
    (required
      ? chain.exists({ values: 'null' }).withMessage('eventSlug is required').bail().isString()
      : chain.isString()
    )
      .withMessage('eventSlug must be a string')
      .bail()
      .trim()
      .isLength({ min: 1, max: 50 })
      .withMessage('eventSlug must be 1-50 characters'),
  );

export const matchSlugInput = defineInput('matchSlug', { params: { slug: matchSlug } });
export type MatchSlugInput = InputOf<typeof matchSlugInput>;

/** POST /matches */
export const createMatchInput = defineInput('createMatch', {
  body: {
    targetUserId: f.custom<number>({ type: 'integer', minimum: 1, maximum: INT32_MAX }, (chain) =>
      chain
        .exists({ values: 'null' })
        .withMessage('targetUserId is required')
        .bail()
        .isInt({ min: 1, max: INT32_MAX })
        .withMessage('targetUserId must be a positive integer')
        .toInt(),
    ),
    eventSlug: eventSlug(true),
  },
});
export type CreateMatchInput = InputOf<typeof createMatchInput>;

/** GET /matches */
export const listMatchesInput = defineInput('listMatches', {
  query: {
    eventSlug: eventSlug(false)
      .optional()
      .describe('Decision: an unknown slug answers 404 "Event not found" (not an empty list)'),
    status: f.oneOf(MATCH_STATUSES).optional(),
  },
});
export type ListMatchesInput = InputOf<typeof listMatchesInput>;

/** GET /matches/:slug/messages: history paging like the event chat's (before, limit). */
export const matchMessagesInput = defineInput('matchMessages', {
  params: { slug: matchSlug },
  query: messagePageQuery,
});
export type MatchMessagesInput = InputOf<typeof matchMessagesInput>;

/** POST /matches/:slug/ratings. Decision: score must be a JSON integer (a string "4" is refused). */
export const rateMatchInput = defineInput('rateMatch', {
  params: { slug: matchSlug },
  body: {
    score: f.custom<number>({ type: 'integer', minimum: 1, maximum: 5 }, (chain) =>
      chain
        .exists({ values: 'null' })
        .withMessage('score is required')
        .bail()
        .custom((v) => Number.isInteger(v) && v >= 1 && v <= 5)
        .withMessage('score must be an integer between 1 and 5'),
    ),
    comment: f
      .custom<string | null>({ type: ['string', 'null'], maxLength: 500 }, (chain) =>
        chain
          .isString()
          .withMessage('comment must be a string')
          .bail()
          .isLength({ max: 500 })
          .withMessage('comment must be at most 500 characters'),
      )
      .optional('null'),
    wouldCollaborateAgain: f
      .custom<boolean | null>({ type: ['boolean', 'null'] }, (chain) =>
        chain.custom((v) => typeof v === 'boolean').withMessage('wouldCollaborateAgain must be a boolean'),
      )
      .optional('null'),
  },
});
export type RateMatchInput = InputOf<typeof rateMatchInput>;

// ---- Socket.IO payloads of the private chat

/** `matchId` of join_private_room / send_private_message: a positive int32, else 400. */
const matchId = f.custom<number>({ type: 'integer', minimum: 1, maximum: INT32_MAX }, (chain) =>
  chain.custom((v) => isPositiveInt32(v)).withMessage('matchId must be a positive integer'),
);

/** join_private_room `{ matchId }` */
export const joinPrivateRoomInput = defineInput('joinPrivateRoom', { body: { matchId } });

/** send_private_message `{ matchId, content }`: content follows the chat core's rule (validateContent). */
export const privateMessageInput = defineInput('privateMessage', {
  body: {
    matchId,
    content: messageContent,
  },
});
export type PrivateMessageInput = InputOf<typeof privateMessageInput>;

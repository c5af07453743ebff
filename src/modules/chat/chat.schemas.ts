import { AppError } from '../../lib/errors.js';
import { defineInput, definePayload, f, type InputOf, type PayloadOf } from '../../middleware/input.js';
import { INT32_MAX } from '../../middleware/validators.js';

/**
 * The inputs of the chat, each declared once (src/middleware/input.ts), and the content rule of
 * a message, shared by the event chat and the private chat of a match (matches.schemas.ts).
 */

export const MESSAGE_MAX_LENGTH = 2000;
export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

/**
 * Validates message content: a string of 1-2000 characters after trimming. The stored text
 * is exactly what was sent (plain text, never HTML-escaped or trimmed).
 */
export function validateContent(content: unknown): string {
  if (typeof content !== 'string')
    throw new AppError('VALIDATION_ERROR', { message: 'Message content must be a string' });
  const trimmed = content.trim();
  if (trimmed.length === 0) throw new AppError('VALIDATION_ERROR', { message: 'Message content must not be empty' });
  if (content.length > MESSAGE_MAX_LENGTH) {
    throw new AppError('VALIDATION_ERROR', {
      message: `Message content must be at most ${MESSAGE_MAX_LENGTH} characters`,
    });
  }
  return content;
}

/** A message's `content` in a socket payload: the rule of validateContent, stored exactly as sent. */
export const messageContent = f.custom<string>(
  { type: 'string', minLength: 1, maxLength: MESSAGE_MAX_LENGTH },
  (chain) => chain.custom((v: unknown) => validateContent(v)),
);

/** A page's `limit`: an integer from 1 to 100, `defaultSize` when absent. */
function pageLimit(defaultSize: number) {
  return f
    .custom<number>({ type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: defaultSize }, (chain) =>
      chain
        .isInt({ min: 1, max: MAX_PAGE_SIZE })
        .withMessage(`limit must be an integer from 1 to ${MAX_PAGE_SIZE}`)
        .toInt(),
    )
    .optional();
}

/** A page of a chat history: `before` (a message id) and `limit` (1-100), as query fields. */
export const messagePageQuery = {
  before: f
    .custom<number>({ type: 'integer', minimum: 1, maximum: INT32_MAX }, (chain) =>
      chain.isInt({ min: 1, max: INT32_MAX }).withMessage('before must be a positive message id').toInt(),
    )
    .optional()
    .describe('message id: only older messages'),
  limit: pageLimit(DEFAULT_PAGE_SIZE),
};

/** GET /events/:slug/messages */
export const eventMessagesInput = defineInput('eventMessages', {
  params: { slug: f.slug() },
  query: messagePageQuery,
});
export type EventMessagesInput = InputOf<typeof eventMessagesInput>;

/** send_event_message `{ content }` */
export const eventMessageInput = defineInput('eventMessage', { body: { content: messageContent } });

/**
 * join_event_room's payload: the event slug, bare. Anything but a string of 1-50 characters is
 * an unknown event (404 EVENT_NOT_FOUND), like an unknown slug. The only check of it: the
 * service (event-room.service.ts openRoom) takes the parsed `{ slug }`.
 */
export const joinEventRoomInput = definePayload(
  'joinEventRoom',
  f.parsed<string>({ type: 'string', maxLength: 50, description: 'event slug' }, (slug) => {
    if (typeof slug !== 'string' || slug.length === 0 || slug.length > 50) throw new AppError('EVENT_NOT_FOUND');
    return slug;
  }),
);
/** What openRoom takes: the parsed slug. */
export interface JoinEventRoomInput {
  slug: PayloadOf<typeof joinEventRoomInput>;
}

/**
 * list_active_users `{ after?, limit? }`: a page of the joined event room's users by ascending
 * id, those with an id above `after` (default 0), at most `limit` (1-100, default 100).
 */
export const activeUsersPageInput = defineInput('activeUsersPage', {
  body: {
    after: f
      .custom<number>({ type: 'integer', minimum: 0, maximum: INT32_MAX, default: 0 }, (chain) =>
        chain.isInt({ min: 0, max: INT32_MAX }).withMessage('after must be a user id (an integer from 0)').toInt(),
      )
      .optional()
      .describe('the nextAfter of the previous page'),
    limit: pageLimit(MAX_PAGE_SIZE),
  },
});

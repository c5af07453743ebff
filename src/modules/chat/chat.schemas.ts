import { query } from 'express-validator';
import { INT32_MAX, pathParam } from '../../middleware/validators.js';
import { MAX_PAGE_SIZE, type MessagePage } from './chat.service.js';

/** A page of a chat history: `before` (a message id) and `limit` (1-100). */
export const messagesQuery = [
  query('before')
    .optional()
    .isInt({ min: 1, max: INT32_MAX })
    .withMessage('before must be a positive message id')
    .toInt(),
  query('limit')
    .optional()
    .isInt({ min: 1, max: MAX_PAGE_SIZE })
    .withMessage(`limit must be an integer from 1 to ${MAX_PAGE_SIZE}`)
    .toInt(),
];

/** GET /events/:slug/messages */
export const eventMessagesQuery = [pathParam('slug'), ...messagesQuery];

export interface EventMessagesQuery extends MessagePage {
  slug: string;
}

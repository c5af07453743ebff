import { query } from 'express-validator';
import { MAX_PAGE_SIZE } from './chat.service.js';

export const messagesQuery = [
  query('before').optional().isInt({ min: 1, max: 2_147_483_647 }).withMessage('before must be a positive message id').toInt(),
  query('limit')
    .optional()
    .isInt({ min: 1, max: MAX_PAGE_SIZE })
    .withMessage(`limit must be an integer from 1 to ${MAX_PAGE_SIZE}`)
    .toInt(),
];

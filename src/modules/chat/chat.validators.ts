import { INT32_MAX } from '../../middleware/validators.js';
import type { Request } from 'express';
import { query } from 'express-validator';
import { MAX_PAGE_SIZE } from './chat.service.js';

export const messagesQuery = [
  query('before').optional().isInt({ min: 1, max: INT32_MAX }).withMessage('before must be a positive message id').toInt(),
  query('limit')
    .optional()
    .isInt({ min: 1, max: MAX_PAGE_SIZE })
    .withMessage(`limit must be an integer from 1 to ${MAX_PAGE_SIZE}`)
    .toInt(),
];

/**
 * The page of a validated history request. Express 5 re-parses req.query on every read, so
 * the validators' toInt() does not stick there: convert here.
 */
export function messagesPage(req: Request): { before?: number; limit?: number } {
  const { before, limit } = req.query as { before?: string; limit?: string };
  return {
    before: before === undefined ? undefined : Number(before),
    limit: limit === undefined ? undefined : Number(limit),
  };
}

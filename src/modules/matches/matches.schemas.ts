import { body, param, query } from 'express-validator';
import { AppError } from '../../lib/errors.js';
import { INT32_MAX, isPositiveInt32 } from '../../middleware/validators.js';
import { messagesQuery } from '../chat/chat.schemas.js';

export const MATCH_STATUSES = ['pending', 'accepted', 'completed'] as const;
export type MatchStatus = (typeof MATCH_STATUSES)[number];

/** `:slug` of the match routes (kept in the validated input). */
const matchSlugParam = param('slug').isString();

export const matchSlugParams = [matchSlugParam];

export interface MatchSlugInput {
  slug: string;
}

export const createMatchRules = [
  body('targetUserId')
    .exists({ values: 'null' })
    .withMessage('targetUserId is required')
    .bail()
    .isInt({ min: 1, max: INT32_MAX })
    .withMessage('targetUserId must be a positive integer')
    .toInt(),
  body('eventSlug')
    .exists({ values: 'null' })
    .withMessage('eventSlug is required')
    .bail()
    .isString()
    .withMessage('eventSlug must be a string')
    .bail()
    .trim()
    .isLength({ min: 1, max: 50 })
    .withMessage('eventSlug must be 1-50 characters'),
];

export interface CreateMatchBody {
  targetUserId: number;
  eventSlug: string;
}

export const listMatchesRules = [
  query('eventSlug')
    .optional()
    .isString()
    .bail()
    .trim()
    .isLength({ min: 1, max: 50 })
    .withMessage('eventSlug must be 1-50 characters'),
  query('status')
    .optional()
    .isIn([...MATCH_STATUSES])
    .withMessage(`status must be one of ${MATCH_STATUSES.join(', ')}`),
];

export interface ListMatchesQuery {
  eventSlug?: string;
  status?: MatchStatus;
}

/** History paging like the event chat's (before, limit). */
export const matchMessagesRules = [matchSlugParam, ...messagesQuery];

export interface MatchMessagesInput extends MatchSlugInput {
  before?: number;
  limit?: number;
}

export const ratingRules = [
  matchSlugParam,
  body('score')
    .exists({ values: 'null' })
    .withMessage('score is required')
    .bail()
    .custom((v) => Number.isInteger(v) && v >= 1 && v <= 5)
    .withMessage('score must be an integer between 1 and 5'),
  body('comment')
    .optional({ values: 'null' })
    .isString()
    .withMessage('comment must be a string')
    .bail()
    .isLength({ max: 500 })
    .withMessage('comment must be at most 500 characters'),
  body('wouldCollaborateAgain')
    .optional({ values: 'null' })
    .custom((v) => typeof v === 'boolean')
    .withMessage('wouldCollaborateAgain must be a boolean'),
];

export interface RatingInput extends MatchSlugInput {
  score: number;
  comment?: string | null;
  wouldCollaborateAgain?: boolean | null;
}

// ---- Socket.IO payloads of the private chat

/** `matchId` of join_private_room / send_private_message: a positive int32, else 400. */
export function matchIdOf(payload: unknown): number {
  const matchId = (payload as { matchId?: unknown } | null | undefined)?.matchId;
  if (!isPositiveInt32(matchId))
    throw new AppError('VALIDATION_ERROR', { message: 'matchId must be a positive integer' });
  return matchId as number;
}

/** The raw `content` of send_private_message (its rule is the chat core's, applied by the service). */
export const contentOf = (payload: unknown): unknown => (payload as { content?: unknown } | null | undefined)?.content;

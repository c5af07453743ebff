import { INT32_MAX } from '../../middleware/validators.js';
import { body, query } from 'express-validator';
import { MATCH_STATUSES } from './matches.service.js';


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

export const listMatchesRules = [
  query('eventSlug').optional().isString().bail().trim().isLength({ min: 1, max: 50 }).withMessage('eventSlug must be 1-50 characters'),
  query('status').optional().isIn([...MATCH_STATUSES]).withMessage(`status must be one of ${MATCH_STATUSES.join(', ')}`),
];

export const ratingRules = [
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

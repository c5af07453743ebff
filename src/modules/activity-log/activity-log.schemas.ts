import { query } from 'express-validator';
import { isoDate } from '../../middleware/validators.js';
import { ACTIVITY_CATEGORIES } from './activity-log.views.js';

/** One value per query parameter (a repeated parameter arrives as an array). */
const single = (field: string) =>
  query(field)
    .optional()
    .custom((v) => typeof v === 'string')
    .withMessage(`${field} must be given once`)
    .bail();

export const activityLogQuery = [
  single('page').isInt({ min: 1, max: 100_000 }).withMessage('page must be a positive whole number').toInt(),
  single('category')
    .isIn(ACTIVITY_CATEGORIES)
    .withMessage(`category must be one of ${ACTIVITY_CATEGORIES.join(', ')}`),
  single('action').isString().isLength({ min: 1, max: 100 }).withMessage('action must be 1-100 characters'),
  single('username').isString().isLength({ min: 1, max: 50 }).withMessage('username must be 1-50 characters'),
  single('success').isIn(['true', 'false']).withMessage('success must be true or false').toBoolean(true),
  isoDate(single('from'), 'from'),
  isoDate(single('to'), 'to'),
];

export interface ActivityLogQuery {
  page?: number;
  category?: string;
  action?: string;
  username?: string;
  success?: boolean;
  from?: Date;
  to?: Date;
}

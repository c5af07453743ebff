import { Router } from 'express';
import { query } from 'express-validator';
import { sendData, sendList } from '../../lib/http.js';
import { requireAdmin, requireAuth } from '../../middleware/auth.js';
import { validate } from '../../middleware/validate.js';
import { ACTIVITY_CATEGORIES, activityStats, distinctActions, listActivityLogs } from './admin.service.js';

export const adminRouter = Router();

/** One value per query parameter (a repeated parameter arrives as an array). */
const single = (field: string) =>
  query(field).optional().custom((v) => typeof v === 'string').withMessage(`${field} must be given once`).bail();

const activityLogQuery = [
  single('page').isInt({ min: 1, max: 100_000 }).withMessage('page must be a positive whole number').toInt(),
  single('category').isIn(ACTIVITY_CATEGORIES).withMessage(`category must be one of ${ACTIVITY_CATEGORIES.join(', ')}`),
  single('action').isString().isLength({ min: 1, max: 100 }).withMessage('action must be 1-100 characters'),
  single('username').isString().isLength({ min: 1, max: 50 }).withMessage('username must be 1-50 characters'),
  single('success').isIn(['true', 'false']).withMessage('success must be true or false'),
  single('from').isISO8601().withMessage('from must be an ISO 8601 date'),
  single('to').isISO8601().withMessage('to must be an ISO 8601 date'),
];

adminRouter.get('/admin/activity-logs', requireAuth, requireAdmin, validate(...activityLogQuery), async (req, res) => {
  const q = req.query as Record<string, string | undefined>;
  const { rows, pagination } = await listActivityLogs({
    page: Number(q.page ?? 1),
    category: q.category,
    action: q.action,
    username: q.username,
    success: q.success === undefined ? undefined : q.success === 'true',
    from: q.from ? new Date(q.from) : undefined,
    to: q.to ? new Date(q.to) : undefined,
  });
  sendList(res, rows, { pagination });
});

adminRouter.get('/admin/activity-logs/actions', requireAuth, requireAdmin, async (_req, res) => {
  const actions = await distinctActions();
  sendList(res, actions);
});

adminRouter.get('/admin/activity-logs/stats', requireAuth, requireAdmin, async (_req, res) => {
  sendData(res, await activityStats());
});

import { Router } from 'express';
import { query } from 'express-validator';
import { sendData, sendList } from '../../lib/http.js';
import { requireAdmin, requireAuth } from '../../middleware/auth.js';
import { validate } from '../../middleware/validate.js';
import { ACTIVITY_CATEGORIES, activityStats, distinctActions, listActivityLogs } from './admin.service.js';

export const adminRouter = Router();

const activityLogQuery = [
  query('page').optional().isInt({ min: 1, max: 100_000 }).withMessage('page must be a positive whole number').toInt(),
  query('category').optional().isIn(ACTIVITY_CATEGORIES).withMessage(`category must be one of ${ACTIVITY_CATEGORIES.join(', ')}`),
  query('action').optional().isString().isLength({ min: 1, max: 100 }).withMessage('action must be 1-100 characters'),
  query('username').optional().isString().isLength({ min: 1, max: 50 }).withMessage('username must be 1-50 characters'),
  query('success').optional().isIn(['true', 'false']).withMessage('success must be true or false'),
  query('from').optional().isISO8601().withMessage('from must be an ISO 8601 date'),
  query('to').optional().isISO8601().withMessage('to must be an ISO 8601 date'),
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

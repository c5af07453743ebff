import { Router } from 'express';
import type { ActivityLogService } from './activity-log.service.js';
import type { AuthGuards } from '../../middleware/auth.js';
import { sendData, sendList } from '../../lib/http.js';
import { actorOf } from '../../middleware/actor.js';
import { validate } from '../../middleware/validate.js';
import { activityLogInput } from './activity-log.schemas.js';

/** What the router calls (built by src/container.ts). */
export interface ActivityLogRouterDeps {
  guards: AuthGuards;
  audit: ActivityLogService;
}

/** The admin activity log: list with filters, distinct actions, statistics (admins only). */
export function createActivityLogRouter({ guards, audit }: ActivityLogRouterDeps): Router {
  const router = Router();
  const admin = [guards.requireAuth, guards.requireAdmin];

  router.get('/admin/activity-logs', ...admin, validate(activityLogInput), async (req, res) => {
    const q = activityLogInput.from(res);
    const { rows, pagination } = await audit.list(actorOf(req), { ...q, page: q.page ?? 1 });
    sendList(res, rows, { pagination });
  });

  router.get('/admin/activity-logs/actions', ...admin, async (req, res) => {
    sendList(res, await audit.distinctActions(actorOf(req)));
  });

  router.get('/admin/activity-logs/stats', ...admin, async (req, res) => {
    sendData(res, await audit.stats(actorOf(req)));
  });
  return router;
}

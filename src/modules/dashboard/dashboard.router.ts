import { Router } from 'express';
import type { Container } from '../../container.js';
import { sendData } from '../../lib/http.js';
import { currentUser } from '../../middleware/auth.js';

/** GET /dashboard: the caller's overview (dashboard.openapi.ts). */
export function createDashboardRouter({ guards, dashboard }: Pick<Container, 'guards' | 'dashboard'>): Router {
  const router = Router();
  router.get('/dashboard', guards.requireAuth, async (req, res) => {
    sendData(res, await dashboard.get(currentUser(req).id));
  });
  return router;
}

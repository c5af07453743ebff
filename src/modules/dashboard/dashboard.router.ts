import { Router } from 'express';
import type { AuthGuards } from '../../middleware/auth.js';
import type { DashboardService } from './dashboard.service.js';
import { sendData } from '../../lib/http.js';
import { actorOf } from '../../middleware/actor.js';

/** What the router calls (built by src/container.ts). */
export interface DashboardRouterDeps {
  guards: AuthGuards;
  dashboard: DashboardService;
}

/** GET /dashboard: the caller's overview (dashboard.openapi.ts). */
export function createDashboardRouter({ guards, dashboard }: DashboardRouterDeps): Router {
  const router = Router();
  router.get('/dashboard', guards.requireAuth, async (req, res) => {
    sendData(res, await dashboard.get(actorOf(req)));
  });
  return router;
}

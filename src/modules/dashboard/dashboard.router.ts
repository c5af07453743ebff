import { Router } from 'express';
import type { AuthGuards } from '../../middleware/auth.js';
import type { CachedRead } from '../../middleware/cached-read.js';
import type { DashboardService } from './dashboard.service.js';
import { sendData } from '../../lib/http.js';
import { actorOf } from '../../middleware/actor.js';

/** What the router calls (built by src/container.ts). */
export interface DashboardRouterDeps {
  guards: AuthGuards;
  cachedRead: CachedRead;
  dashboard: DashboardService;
}

/** Every table the dashboard statement reads (dashboard.service.ts). */
const DASHBOARD_TABLES = [
  'EventParticipant',
  'Event',
  'Heat',
  'RecordingSuggestion',
  'Match',
  'VideoTransfer',
  'User',
  'ChatRoom',
];

/** GET /dashboard: the caller's overview (dashboard.openapi.ts). */
export function createDashboardRouter({ guards, cachedRead, dashboard }: DashboardRouterDeps): Router {
  const router = Router();
  router.get('/dashboard', guards.requireAuth, cachedRead(DASHBOARD_TABLES), async (req, res) => {
    sendData(res, await dashboard.get(actorOf(req)));
  });
  return router;
}

import { Router } from 'express';
import type { Database } from '../../lib/prisma.js';

/** What the router calls (built by src/container.ts). */
export interface HealthRouterDeps {
  database: Database;
}

/** Liveness and database reachability; 503 when the database does not answer. */
export function createHealthRouter({ database }: HealthRouterDeps): Router {
  const router = Router();
  router.get('/health', async (_req, res) => {
    const databaseKind = database.kind;
    if (await database.ping()) {
      res.json({ success: true, data: { status: 'ok', database: 'up', databaseKind } });
      return;
    }
    res.status(503).json({
      success: false,
      error: 'Service temporarily unavailable',
      code: 'SERVICE_UNAVAILABLE',
      data: { status: 'degraded', database: 'down', databaseKind },
    });
  });
  return router;
}

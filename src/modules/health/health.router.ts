import { Router } from 'express';
import type { Container } from '../../container.js';

/** Liveness and database reachability; 503 when the database does not answer. */
export function createHealthRouter({ database }: Pick<Container, 'database'>): Router {
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

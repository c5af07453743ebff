import { Router } from 'express';
import { databaseKind, pingDatabase } from '../../lib/prisma.js';

export const healthRouter = Router();

/** Liveness and database reachability; 503 when the database does not answer. */
healthRouter.get('/health', async (_req, res) => {
  const up = await pingDatabase();
  if (up) {
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

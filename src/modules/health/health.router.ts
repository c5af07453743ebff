import { Router } from 'express';
import type { InstanceState } from '../../lib/lifecycle.js';
import type { Database } from '../../lib/prisma.js';

/** What the router calls (built by src/container.ts). */
export interface HealthRouterDeps {
  database: Database;
  /** whether this instance is shutting down */
  instance: InstanceState;
}

/**
 * Health probes (docs/operations.md, "Health and probes"):
 * - `/health/live`: the process answers; no database call, so an outage of the database never
 *   makes an orchestrator restart healthy processes.
 * - `/health/ready`: the instance can serve: database reachable, every migration of this build
 *   applied, not shutting down; otherwise 503 with `data.checks` naming what failed.
 * - `/health`: the original probe (database reachability), kept as documented.
 * Successful probes are logged at debug only (src/middleware/request-logger.ts).
 */
export function createHealthRouter({ database, instance }: HealthRouterDeps): Router {
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

  router.get('/health/live', (_req, res) => {
    res.json({ success: true, data: { status: 'ok' } });
  });

  router.get('/health/ready', async (_req, res) => {
    const databaseUp = !instance.shuttingDown && (await database.ping());
    const checks = {
      database: databaseUp ? 'up' : instance.shuttingDown ? 'not checked' : 'down',
      migrations: databaseUp ? ((await database.migrationsApplied()) ? 'applied' : 'pending') : 'unknown',
      shutdown: instance.shuttingDown ? 'in progress' : 'no',
    } as const;
    if (checks.database === 'up' && checks.migrations === 'applied' && checks.shutdown === 'no') {
      res.json({ success: true, data: { status: 'ready', checks } });
      return;
    }
    res.status(503).json({
      success: false,
      error: 'Service temporarily unavailable',
      code: 'SERVICE_UNAVAILABLE',
      data: { status: 'not ready', checks },
    });
  });
  return router;
}

import { Router, type Response } from 'express';
import { sendData } from '../../lib/http.js';
import { actorOf } from '../../middleware/actor.js';
import type { HealthService, ProbeResult } from './health.service.js';

/** What the router calls (built by src/container.ts). */
export interface HealthRouterDeps {
  health: Pick<HealthService, 'database' | 'readiness'>;
}

/** 200 with the probe's data, or the 503 envelope with it (no Retry-After: orchestrators poll on their own). */
function sendProbe<T>(res: Response, { ok, data }: ProbeResult<T>): void {
  if (ok) return sendData(res, data);
  res.status(503).json({ success: false, error: 'Service temporarily unavailable', code: 'SERVICE_UNAVAILABLE', data });
}

/**
 * Health probes (docs/operations.md, "Health and probes"); the rules are HealthService's:
 * - `/health/live`: the process answers; no database call, so an outage of the database never
 *   makes an orchestrator restart healthy processes.
 * - `/health/ready`: the instance can serve: database reachable, every migration of this build
 *   applied, not shutting down; otherwise 503 with `data.checks` naming what failed.
 * - `/health`: the original probe (database reachability), kept as documented.
 * Successful probes are logged at debug only (src/middleware/request-logger.ts).
 */
export function createHealthRouter({ health }: HealthRouterDeps): Router {
  const router = Router();
  router.get('/health', async (req, res) => {
    sendProbe(res, await health.database(actorOf(req)));
  });

  router.get('/health/live', (_req, res) => {
    sendData(res, { status: 'ok' });
  });

  router.get('/health/ready', async (req, res) => {
    sendProbe(res, await health.readiness(actorOf(req)));
  });
  return router;
}

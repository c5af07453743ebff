import cookieParser from 'cookie-parser';
import cors from 'cors';
import express, { type Express } from 'express';
import helmet from 'helmet';
import { config } from './config/index.js';
import { csrfProtection } from './middleware/csrf.js';
import { errorHandler, notFoundHandler } from './middleware/error-handler.js';
import { generalLimiter } from './middleware/rate-limit.js';
import { requestLogger } from './middleware/request-logger.js';
import { httpMetricsMiddleware, Metrics, metricsRouter } from './lib/metrics.js';
import { databasePoolStats } from './lib/prisma.js';
import { API_MOUNT_PATH, moduleRouters } from './routes.js';

export const BODY_LIMIT = '100kb';

// --- Operations (issue 17): until src/container.ts builds Metrics, one per process, made on first use.
let processMetrics: Metrics | undefined;
function metricsOfProcess(): Metrics {
  processMetrics ??= new Metrics({ databasePool: databasePoolStats });
  return processMetrics;
}

export interface AppOptions {
  metrics?: Metrics;
  /** Bearer token of GET /api/metrics; defaults to METRICS_TOKEN (unset → no such route). */
  metricsToken?: string;
}
// --- end Operations

/** Builds the Express application without listening (src/server.ts listens). */
export function buildApp(options: AppOptions = {}): Express {
  const metrics = options.metrics ?? metricsOfProcess();
  const metricsToken = 'metricsToken' in options ? options.metricsToken : config.metrics.token;
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.trustProxy);
  app.set('query parser', 'simple');

  app.use(httpMetricsMiddleware(metrics, API_MOUNT_PATH));
  app.use(requestLogger);
  app.use(helmet());
  app.use(cors({ origin: config.corsOrigins, credentials: true }));
  app.use(express.json({ limit: BODY_LIMIT }));
  // Express 5 leaves req.body undefined without a JSON body; handlers always see an object.
  app.use((req, _res, next) => {
    if (req.body === undefined) req.body = {};
    next();
  });
  app.use(cookieParser());

  // Scrapes skip the per-IP API limit; the token guards the route.
  app.use(API_MOUNT_PATH, metricsRouter(metrics, metricsToken));
  app.use(API_MOUNT_PATH, generalLimiter, csrfProtection);
  for (const router of moduleRouters) app.use(API_MOUNT_PATH, router);
  app.use(notFoundHandler);
  app.use(errorHandler);
  return app;
}

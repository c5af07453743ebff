import cookieParser from 'cookie-parser';
import cors from 'cors';
import express, { type Express } from 'express';
import helmet from 'helmet';
import type { Container } from './container.js';
import { errorHandler, notFoundHandler } from './middleware/error-handler.js';
import { inputGuard } from './middleware/input-guard.js';
import { createRequestLogger } from './middleware/request-logger.js';
import { httpMetricsMiddleware, metricsRouter } from './lib/metrics.js';
import { API_MOUNT_PATH, createRouters } from './routes.js';
import { routeIndex } from './lib/route-index.js';
import { createAvatarsRouter } from './modules/avatars/avatars.router.js';
import { CONSOLE_MOUNT_PATH, createConsoleRouter } from './modules/console/console.router.js';

export const BODY_LIMIT = '100kb';

/** Builds the Express application of a container without listening (src/server.ts listens). */
export function buildApp(container: Container): Express {
  const { config, metrics } = container;
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.trustProxy);
  app.set('query parser', 'simple');

  app.use(httpMetricsMiddleware(metrics, API_MOUNT_PATH));
  app.use(createRequestLogger(container.logger));
  app.use(helmet());
  app.use(cors({ origin: config.corsOrigins, credentials: true }));
  // the read cache's answers, before the parsers and routers (src/middleware/cached-read.ts)
  const routers = createRouters(container);
  app.use(API_MOUNT_PATH, container.hotLane.middleware(routers));
  // strict: false parses any JSON value, so that the input guard answers a body that is not an
  // object with 400 "Validation failed" like any other invalid input.
  app.use(express.json({ limit: BODY_LIMIT, strict: false }));
  // Control characters in paths and queries, NUL in JSON strings, bodies that are not objects (issue 13).
  app.use(inputGuard());
  app.use(cookieParser());

  // Scrapes skip the per-IP API limit; the token guards the route. Avatars skip it too: a page
  // of participants loads many, each cached for a year.
  app.use(
    API_MOUNT_PATH,
    routeIndex([
      metricsRouter(metrics, config.metrics.token, container.limiters.metricsFailures),
      createAvatarsRouter(container),
    ]),
  );
  app.use(API_MOUNT_PATH, container.limiters.general, container.csrf.protection);
  // one lookup on the path's first segment instead of a walk through every router (src/lib/route-index.ts)
  app.use(API_MOUNT_PATH, routeIndex(routers));
  // The admin console (outside /api: its own CSP, no rate limit or CSRF on its static files).
  app.use(CONSOLE_MOUNT_PATH, createConsoleRouter());
  app.use(notFoundHandler);
  app.use(errorHandler(container.logger));
  return app;
}

import cookieParser from 'cookie-parser';
import cors from 'cors';
import express, { type Express } from 'express';
import helmet from 'helmet';
import type { Container } from './container.js';
import { errorHandler, notFoundHandler } from './middleware/error-handler.js';
import { createRequestLogger } from './middleware/request-logger.js';
import { createRouters } from './routes.js';

export const BODY_LIMIT = '100kb';

/** Builds the Express application of a container without listening (src/server.ts listens). */
export function buildApp(container: Container): Express {
  const { config } = container;
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.trustProxy);
  app.set('query parser', 'simple');

  app.use(createRequestLogger(container.logger));
  app.use(helmet());
  app.use(cors({ origin: config.corsOrigins, credentials: true }));
  app.use(express.json({ limit: BODY_LIMIT }));
  // Express 5 leaves req.body undefined without a JSON body; handlers always see an object.
  app.use((req, _res, next) => {
    if (req.body === undefined) req.body = {};
    next();
  });
  app.use(cookieParser());

  app.use('/api', container.limiters.general, container.csrf.protection);
  for (const router of createRouters(container)) app.use('/api', router);
  app.use(notFoundHandler);
  app.use(errorHandler(container.logger));
  return app;
}

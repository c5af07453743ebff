import cookieParser from 'cookie-parser';
import cors from 'cors';
import express, { type Express } from 'express';
import helmet from 'helmet';
import { config } from './config/index.js';
import { csrfProtection } from './middleware/csrf.js';
import { errorHandler, notFoundHandler } from './middleware/error-handler.js';
import { generalLimiter } from './middleware/rate-limit.js';
import { requestLogger } from './middleware/request-logger.js';
import { moduleRouters } from './routes.js';

export const BODY_LIMIT = '100kb';

/** Builds the Express application without listening (src/server.ts listens). */
export function buildApp(): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.trustProxy);
  app.set('query parser', 'simple');

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

  app.use('/api', generalLimiter, csrfProtection);
  for (const router of moduleRouters) app.use('/api', router);
  app.use(notFoundHandler);
  app.use(errorHandler);
  return app;
}

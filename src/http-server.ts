import { createServer, type Server } from 'node:http';
import type { Express } from 'express';
import { buildApp } from './app.js';
import type { Container } from './container.js';
import { attachRealtime, type AppServer } from './realtime/io.js';
import { socketRegistrars } from './realtime/registrars.js';
import { eventPresence } from './modules/chat/chat.presence.js';
import { appMessageClasses } from './lib/app-messages.js';

export interface AppHttpServer {
  app: Express;
  httpServer: Server;
  io: AppServer;
}

/** The app and Socket.IO of a container on one HTTP server (not listening yet). Used by server.ts and tests. */
export function createAppServer(container: Container): AppHttpServer {
  const app = buildApp(container);
  // requests and responses born with the app's prototypes (src/lib/app-messages.ts)
  const httpServer = createServer(appMessageClasses(app), app);
  // Slow or idle clients cannot hold connections forever.
  httpServer.headersTimeout = 20_000;
  httpServer.requestTimeout = 30_000;
  httpServer.keepAliveTimeout = 5_000;
  const io = attachRealtime(httpServer, container, socketRegistrars(container));
  container.notifier.bind(io, eventPresence(io, container.config.realtime.presenceCount));
  return { app, httpServer, io };
}

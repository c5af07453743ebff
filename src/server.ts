import 'dotenv/config';
import { ConfigError } from './config/config-error.js';

/**
 * Entry point: validates the configuration, builds the container, prepares the database
 * (migrations + reference data), listens with Socket.IO on the same port, starts the
 * matching scheduler, and shuts down cleanly on SIGTERM/SIGINT. Modules are imported
 * dynamically so that a bad configuration stops the start with a clear message.
 */
const SHUTDOWN_TIMEOUT_MS = 9_000;

async function main(): Promise<void> {
  const { loadConfig } = await import('./config/index.js');
  const { createContainer } = await import('./container.js');
  const { createAppServer } = await import('./http-server.js');
  const { closeRealtime } = await import('./realtime/io.js');
  const { startMatchingScheduler } = await import('./modules/matching/matching.scheduler.js');

  const config = loadConfig(process.env);
  const container = createContainer(config, { asyncLogs: true });
  const { logger } = container;
  if (config.jwt.usingDevSecret) logger.warn('JWT_SECRET is not set: using the development secret (never do this in production)');
  await container.database.prepare();

  const { httpServer, io } = createAppServer(container);
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(config.port, config.host, () => resolve());
  });
  const address = httpServer.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  logger.info({ port, database: container.database.kind, env: config.env }, `listening on http://localhost:${port}`);

  const stopScheduler = config.matchingScheduler.enabled ? startMatchingScheduler(container) : async () => undefined;

  let shuttingDown = false;
  const shutdown = async (signal: string) => {
    if (shuttingDown) return;
    shuttingDown = true;
    logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => {
      logger.warn('in-flight requests did not finish in time; closing their connections');
      httpServer.closeAllConnections();
    }, SHUTDOWN_TIMEOUT_MS);
    force.unref();
    // Stop accepting, let in-flight requests finish, close idle keep-alive connections.
    const closed = new Promise<void>((resolve) => httpServer.close(() => resolve()));
    httpServer.closeIdleConnections();
    await stopScheduler().catch((err: unknown) => logger.error({ err }, 'scheduler stop failed'));
    await closeRealtime(io);
    await closed;
    await container.close();
    clearTimeout(force);
    logger.info('shutdown complete');
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('unhandledRejection', (err: unknown) => {
    logger.error({ err }, 'unhandled promise rejection: shutting down');
    void shutdown('unhandledRejection');
  });
}

main().catch((err: unknown) => {
  if (err instanceof ConfigError || (err as Error)?.name === 'EmbeddedDatabaseLockedError') {
    console.error(`Cannot start: ${(err as Error).message}`);
  } else if ((err as NodeJS.ErrnoException)?.code === 'EADDRINUSE') {
    console.error(`Cannot start: port already in use (${(err as Error).message})`);
  } else {
    console.error('Cannot start:', err);
  }
  process.exit(1);
});

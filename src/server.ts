import 'dotenv/config';
import { ConfigError } from './config/config-error.js';
import type { ResolvedDatabase } from './lib/database.js';
import { EmbeddedDatabaseError, EmbeddedDatabaseInUseError } from './lib/embedded-postgres.js';
import { DatabaseUnreachableError } from './lib/startup-errors.js';
import type { WarmUpReport } from './lib/warm-up.js';

// Resolved first (DATABASE_URL or the embedded server), stopped last.
let database: ResolvedDatabase | undefined;

/**
 * Entry point: validates the configuration, builds the container, prepares the database
 * (migrations + reference data), listens with Socket.IO on the same port, starts the
 * matching scheduler, and shuts down cleanly on SIGTERM/SIGINT. Modules are imported
 * dynamically so that a bad configuration stops the start with a clear message.
 */
async function main(): Promise<void> {
  // issue 16: a signal during start-up (even during these imports) stops the start with exit 0.
  const startup = new AbortController();
  // eslint-disable-next-line prefer-const -- assigned once the service has started, read by the signal handler before
  let stop: ((signal: string) => void) | undefined;
  const onSignal = (signal: string) => (stop ? stop(signal) : startup.abort(signal));
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  process.on('SIGINT', () => onSignal('SIGINT'));

  const { loadConfig } = await import('./config/index.js');
  const { createLogger, prettyTransport } = await import('./lib/logger.js');
  const { systemActor } = await import('./lib/actor.js');
  const { resolveDatabase } = await import('./lib/database.js');
  const { createContainer } = await import('./container.js');
  const { createAppServer } = await import('./http-server.js');
  const { closeRealtime } = await import('./realtime/io.js');
  const { startMatchingScheduler } = await import('./modules/matching/matching.scheduler.js');
  const { HttpDrain, StartupAborted, duringStartup, prepareDatabase } = await import('./lib/lifecycle.js');
  const { listenOn } = await import('./lib/listeners.js');
  const { warmUp } = await import('./lib/warm-up.js');
  const { reasonOf, unhandledRejectionPolicy } = await import('./lib/connection-loss.js');
  const { optimiseAfterCalls, pretenureAllocationSites } = await import('./lib/v8-tiering.js');

  const config = loadConfig(process.env);
  if (startup.signal.aborted) process.exit(0);
  // the server's log lines leave through pino's asynchronous destination (src/lib/logger.ts)
  const logger = createLogger(config.logLevel, prettyTransport(config.env, process.stdout.isTTY === true), true);
  // before the request path has run: its functions reach TurboFan after this many calls
  if (optimiseAfterCalls(config.v8TurbofanCalls))
    logger.info({ calls: config.v8TurbofanCalls }, `V8 optimises a function after ${config.v8TurbofanCalls} calls`);
  if (pretenureAllocationSites(config.v8Pretenuring)) logger.info('V8 allocation-site pretenuring is off');
  database = await resolveDatabase(config, logger, 'service');
  const container = createContainer({ ...config, databaseUrl: database.url }, { logger, databaseKind: database.kind });
  if (config.jwt.secretFile)
    logger.warn(
      { file: config.jwt.secretFile },
      'JWT_SECRET is not set: using the secret generated in the data directory',
    );
  try {
    const prepare = prepareDatabase(() => container.database.prepare(), {
      url: database.url,
      timeoutMs: config.databaseStartupTimeoutMs,
      logger,
      signal: startup.signal,
    });
    await duringStartup(startup.signal, prepare, config.shutdownTimeoutMs);
    await duringStartup(startup.signal, container.mailQueue.startWorker(), config.shutdownTimeoutMs);
  } catch (err) {
    if (!(err instanceof StartupAborted)) {
      await container.close();
      throw err;
    }
    // Each migration commits with its record: whatever was cut off is rolled back by PostgreSQL.
    logger.info('stopped during start-up');
    await container.close();
    await database.stop().catch(() => undefined);
    process.exit(0);
  }
  // Stored avatar URLs point at this service's avatar route under PUBLIC_URL (docs/privacy.md).
  await container.avatars
    .repointStoredUrls(systemActor('start-up'))
    .catch((err: unknown) => logger.error({ err }, 'pointing avatar URLs at this service failed'));
  // Runs left `running` by a process that stopped mid-run (another instance's live run keeps its lock and is left alone).
  await container.matching
    .closeInterruptedRuns(systemActor('start-up'))
    .catch((err: unknown) => logger.error({ err }, 'closing interrupted matching runs failed'));

  // DATABASE_POOL_MIN connections opened now rather than by the first requests (a failure is not fatal)
  await container.database
    .warm()
    .catch((err: unknown) => logger.warn({ reason: reasonOf(err) }, 'opening the kept database connections failed'));

  const { app, httpServer, io } = createAppServer(container);
  // WARMUP_MS: the hot reads sent through the app before it listens (src/lib/warm-up.ts), with
  // the read cache listening already, so the first polls after a start find a warm process
  if (config.warmUp.ms > 0) {
    await container.readCache?.start();
    logger.info({ ms: config.warmUp.ms }, `warming up for ${config.warmUp.ms} ms before listening`);
    const report: WarmUpReport = await warmUp(app, container, { ...config.warmUp, signal: startup.signal }).catch(
      (err: unknown) => ({
        reads: 0,
        ms: 0,
        callers: 0,
        stoppedBy: reasonOf(err),
      }),
    );
    if (report.stoppedBy) logger.warn(report, `warm-up stopped after ${report.reads} reads: ${report.stoppedBy}`);
    else
      logger.info(
        report,
        `warmed up: ${report.reads} reads${report.event ? ` of ${report.event}` : ''} as ${report.callers} participants in ${report.ms} ms`,
      );
  }
  const drain = new HttpDrain(httpServer);
  const listening = await listenOn(
    httpServer,
    { port: config.port, host: config.host, backlog: config.listenBacklog, sockets: config.listenSockets },
    (err) => logger.error({ err }, 'a listening socket failed'),
  );
  httpServer.on('error', (err) => logger.error({ err }, 'the HTTP server failed'));
  const { port, sockets } = listening;
  if (sockets < config.listenSockets)
    logger.info(
      { requested: config.listenSockets },
      'one listening socket: LISTEN_SOCKETS needs Node.js 22.12 or later',
    );
  logger.info(
    { port, listeningSockets: sockets, database: container.database.kind, env: config.env },
    `listening on http://localhost:${port}`,
  );
  // Start-up figure (process start → listening); docs/benchmarks.md records measured values.
  const startupMs = Math.round(performance.now());
  const on =
    database.kind === 'embedded'
      ? `embedded PostgreSQL ${database.version}, ${database.created ? 'new' : 'existing'} data directory`
      : 'DATABASE_URL';
  logger.info({ startupMs }, `ready in ${startupMs} ms (${on})`);

  // The read cache listens for changes from now on (until then reads go to the database).
  void container.readCache?.start();

  // IP retention: a purge now in the background, then a daily pg-boss job (docs/privacy.md).
  container.ipPurgeSchedule.start();
  const stopScheduler = config.matchingScheduler.enabled ? startMatchingScheduler(container) : async () => undefined;

  // Shutdown (issue 16): stop accepting, answer in-flight requests with `Connection: close`,
  // close idle connections at once, wait for the handlers (at most SHUTDOWN_TIMEOUT_MS), and
  // only then close the database.
  let shuttingDown = false;
  stop = (signal: string) => {
    if (shuttingDown) return;
    shuttingDown = true;
    container.instance.shuttingDown = true;
    drain.begin();
    listening.closeOthers();
    logger.info({ signal, inFlight: drain.active }, 'shutting down');
    void (async () => {
      // A mail being sent gets the same time; if it overruns, pg-boss retries it later.
      const mailStopped = container.mailQueue.stop(config.shutdownTimeoutMs);
      await stopScheduler().catch((err: unknown) => logger.error({ err }, 'scheduler stop failed'));
      await closeRealtime(io);
      if (!(await drain.finished(config.shutdownTimeoutMs))) {
        logger.warn({ inFlight: drain.active }, 'in-flight requests did not finish in time; closed their connections');
      }
      await mailStopped;
      await container.close();
      await database?.stop().catch((err: unknown) => logger.error({ err }, 'stopping the embedded database failed'));
      logger.info('shutdown complete');
      process.exit(0);
    })();
  };
  if (startup.signal.aborted) stop(String(startup.signal.reason));
  // issue 23: pg-boss and the Redis adapter leave some calls unawaited; a lost connection there is
  // an outage (a warning, the process keeps running), anything else a bug (shut down).
  process.on(
    'unhandledRejection',
    unhandledRejectionPolicy(logger, () => stop?.('unhandledRejection')),
  );
}

main().catch(async (err: unknown) => {
  await database?.stop().catch(() => undefined);
  if (
    err instanceof ConfigError ||
    err instanceof DatabaseUnreachableError ||
    err instanceof EmbeddedDatabaseInUseError ||
    err instanceof EmbeddedDatabaseError
  ) {
    console.error(`Cannot start: ${(err as Error).message}`);
  } else if ((err as NodeJS.ErrnoException)?.code === 'EADDRINUSE') {
    console.error(`Cannot start: port already in use (${(err as Error).message})`);
  } else {
    console.error('Cannot start:', err);
  }
  process.exit(1);
});

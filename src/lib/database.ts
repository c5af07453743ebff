import type { Config } from '../config/index.js';
import { openEmbeddedDatabase, startEmbeddedDatabase } from './embedded-postgres.js';
import type { Logger } from './logger.js';
import type { DatabaseKind } from './prisma.js';

/**
 * The PostgreSQL server of this process: DATABASE_URL, or the embedded server
 * (src/lib/embedded-postgres.ts) when it is unset. server.ts and cli.ts resolve it before
 * the container is built; `kind` is reported by /api/health as `databaseKind`.
 */
export interface ResolvedDatabase {
  url: string;
  kind: DatabaseKind;
  /** server version, known for the embedded server */
  version?: string;
  /** true when this start created the embedded cluster */
  created?: boolean;
  /** stops the embedded server this process started; a no-op otherwise */
  stop(): Promise<void>;
}

/**
 * The service owns the embedded server (a second service on the same directory is refused);
 * the CLI joins the running service's server, or starts and later stops it.
 */
export async function resolveDatabase(
  config: Config,
  logger: Logger,
  role: 'service' | 'cli',
): Promise<ResolvedDatabase> {
  if (config.databaseUrl) return { url: config.databaseUrl, kind: 'postgres', stop: async () => undefined };
  const options = { dataDir: config.embeddedDb.dir, port: config.embeddedDb.port, logger };
  const embedded = role === 'service' ? await startEmbeddedDatabase(options) : await openEmbeddedDatabase(options);
  return {
    url: embedded.url,
    kind: 'embedded',
    version: embedded.version,
    created: embedded.created,
    stop: embedded.stop,
  };
}

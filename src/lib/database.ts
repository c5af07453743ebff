import type { Logger } from 'pino';
import type { Config } from '../config/index.js';
import { openEmbeddedDatabase, startEmbeddedDatabase } from './embedded-postgres.js';

/**
 * The PostgreSQL server of this process: DATABASE_URL, or the embedded server
 * (src/lib/embedded-postgres.ts) when it is unset. server.ts and cli.ts resolve it before
 * anything connects; src/lib/prisma.ts and the matching lock read it through currentDatabase().
 * `kind` is reported by /api/health as `databaseKind`.
 */

export type DatabaseKind = 'postgres' | 'embedded';

export interface Database {
  url: string;
  kind: DatabaseKind;
  /** server version, known for the embedded server */
  version?: string;
  /** true when this start created the embedded cluster */
  created?: boolean;
  /** stops the embedded server this process started; a no-op otherwise */
  stop(): Promise<void>;
}

let current: Pick<Database, 'url' | 'kind'> | undefined;

/**
 * The service owns the embedded server (a second service on the same directory is refused);
 * the CLI joins the running service's server, or starts and later stops it.
 */
export async function resolveDatabase(config: Config, logger: Logger, role: 'service' | 'cli'): Promise<Database> {
  if (config.databaseUrl) {
    current = { url: config.databaseUrl, kind: 'postgres' };
    return { ...current, stop: async () => undefined };
  }
  const options = { dataDir: config.embeddedDb.dir, port: config.embeddedDb.port, logger };
  const embedded = role === 'service' ? await startEmbeddedDatabase(options) : await openEmbeddedDatabase(options);
  current = { url: embedded.url, kind: 'embedded' };
  return { ...current, version: embedded.version, created: embedded.created, stop: embedded.stop };
}

/** The resolved database; without resolveDatabase(), DATABASE_URL (the tests and scripts set it). */
export function currentDatabase(config: Config): Pick<Database, 'url' | 'kind'> {
  if (current) return current;
  if (config.databaseUrl) return { url: config.databaseUrl, kind: 'postgres' };
  throw new Error('DATABASE_URL is unset and the embedded database was not started (src/server.ts and src/cli.ts start it)');
}

import { Client } from 'pg';
import { config } from '../../config/index.js';
import { currentDatabase } from '../../lib/database.js';

/**
 * One lock per event serialises every matching run of that event (manual, CLI and
 * scheduled), across all service instances: a PostgreSQL session-level advisory lock
 * `pg_try_advisory_lock(MATCHING_LOCK_CLASS, eventId)` held on a dedicated connection
 * for the whole run (load → engine → write). A crashed holder loses its session and with
 * it the lock.
 */
export const MATCHING_LOCK_CLASS = 7_270_001;

export type ReleaseLock = () => Promise<void>;

/** The release function when the lock was free, undefined when another run holds it. */
export async function tryLockEvent(eventId: number): Promise<ReleaseLock | undefined> {
  const client = new Client({ connectionString: currentDatabase(config).url, connectionTimeoutMillis: 5000 });
  // A broken lock connection must not crash the process; the run notices at release.
  client.on('error', () => undefined);
  await client.connect();
  try {
    const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS locked', [
      MATCHING_LOCK_CLASS,
      eventId,
    ]);
    if (!rows[0]?.locked) {
      await client.end();
      return undefined;
    }
  } catch (err) {
    await client.end().catch(() => undefined);
    throw err;
  }
  return async () => {
    // Closing the session releases the lock even if the unlock statement fails.
    await client.query('SELECT pg_advisory_unlock($1, $2)', [MATCHING_LOCK_CLASS, eventId]).catch(() => undefined);
    await client.end().catch(() => undefined);
  };
}

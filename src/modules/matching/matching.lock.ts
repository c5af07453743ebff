import { Client } from 'pg';
import type { Prisma } from '../../generated/prisma/client.js';

/**
 * One lock per event serialises every matching run of that event (manual, CLI and
 * scheduled), across all service instances: a PostgreSQL session-level advisory lock
 * `pg_try_advisory_lock(MATCHING_LOCK_CLASS, eventId)` held on a dedicated connection
 * for the whole run (load → engine → write). A crashed holder loses its session and with
 * it the lock. A suggestion decision takes the same lock shared, for its transaction, so a
 * run never replaces a suggestion that is being answered.
 */
export const MATCHING_LOCK_CLASS = 7_270_001;

export type ReleaseLock = () => Promise<void>;

export class MatchingLock {
  constructor(private readonly databaseUrl: string) {}

  /** The release function when the lock was free, undefined when another run holds it. */
  async tryLock(eventId: number): Promise<ReleaseLock | undefined> {
    const client = new Client({ connectionString: this.databaseUrl, connectionTimeoutMillis: 5000 });
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

  /** Inside a transaction: waits for a run of the event in progress and keeps runs out until the commit. */
  async holdSharedInTransaction(tx: Prisma.TransactionClient, eventId: number): Promise<void> {
    await tx.$queryRaw`SELECT pg_advisory_xact_lock_shared(${MATCHING_LOCK_CLASS}::int, ${eventId}::int)::text AS locked`;
  }
}

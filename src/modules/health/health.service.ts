import type { Actor } from '../../lib/actor.js';
import type { InstanceState } from '../../lib/lifecycle.js';
import type { Database } from '../../lib/prisma.js';

export interface HealthDeps {
  database: Pick<Database, 'kind' | 'ping' | 'migrationsApplied'>;
  /** whether this instance is shutting down */
  instance: InstanceState;
  /**
   * A round trip to the database shared with the reads waiting for it (the read cache's fence,
   * src/lib/read-cache.ts): true once a statement sent after the call came back; false when that
   * connection is not up (then the pool is asked). Absent without a read cache.
   */
  sharedRoundTrip?: () => Promise<boolean>;
}

/** A probe's answer: `ok` false is a 503 with `data` naming what failed (health.router.ts). */
export interface ProbeResult<T> {
  ok: boolean;
  data: T;
}

/**
 * The health probes' rules (docs/operations.md, "Health and probes"); anyone may ask, and no
 * probe writes anything.
 */
export class HealthService {
  constructor(private readonly deps: HealthDeps) {}

  /**
   * `/health`: the original probe, the database's reachability: a statement sent after the call
   * came back. Phones poll it (one every 5 s each, 30 a second at 3 000 dancers), so it rides on
   * the round trip the cached reads of the moment share rather than taking a pool connection of
   * its own each time (docs/event-day.md); when that connection is down, the pool is asked.
   */
  async database(_actor: Actor) {
    const { database, sharedRoundTrip } = this.deps;
    const databaseKind = database.kind;
    const up = (await sharedRoundTrip?.()) || (await database.ping());
    return up
      ? { ok: true, data: { status: 'ok', database: 'up', databaseKind } }
      : { ok: false, data: { status: 'degraded', database: 'down', databaseKind } };
  }

  /**
   * `/health/ready`: ready when the database answers, every migration of this build is applied
   * and the instance is not shutting down (then the database is not even asked).
   */
  async readiness(_actor: Actor) {
    const { database, instance } = this.deps;
    const databaseUp = !instance.shuttingDown && (await database.ping());
    const checks = {
      database: databaseUp ? 'up' : instance.shuttingDown ? 'not checked' : 'down',
      migrations: databaseUp ? ((await database.migrationsApplied()) ? 'applied' : 'pending') : 'unknown',
      shutdown: instance.shuttingDown ? 'in progress' : 'no',
    } as const;
    const ok = checks.database === 'up' && checks.migrations === 'applied' && checks.shutdown === 'no';
    return { ok, data: { status: ok ? 'ready' : 'not ready', checks } };
  }
}

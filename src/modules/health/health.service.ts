import type { Actor } from '../../lib/actor.js';
import type { InstanceState } from '../../lib/lifecycle.js';
import type { Database } from '../../lib/prisma.js';

export interface HealthDeps {
  database: Pick<Database, 'kind' | 'ping' | 'migrationsApplied'>;
  /** whether this instance is shutting down */
  instance: InstanceState;
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

  /** `/health`: the original probe, the database's reachability. */
  async database(_actor: Actor) {
    const { database } = this.deps;
    const databaseKind = database.kind;
    const up = await database.ping();
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

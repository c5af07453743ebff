import type { Actor } from '../../lib/actor.js';
import type { Clock } from '../../lib/clock.js';
import type { ActivityLogService } from '../activity-log/activity-log.service.js';

/**
 * Retention of client addresses (docs/privacy.md): activity-log entries older than
 * ACTIVITY_LOG_IP_RETENTION_DAYS lose their `ip` (the entry stays). One UPDATE, idempotent and
 * safe with several instances (a second purge finds nothing left to clear), run by the activity log
 * (the table's owner). The schedule is
 * ip-retention.job.ts; the CLI's privacy:purge-ips runs `purge` once with its own `asOf`.
 */

const DAY_MS = 24 * 60 * 60 * 1000;

export interface IpRetentionDeps {
  audit: Pick<ActivityLogService, 'clearIpsBefore'>;
  clock: Clock;
  retentionDays: number;
}

export interface IpPurgeStatus {
  activityLogIpRetentionDays: number;
  /** when this instance's last scheduled purge finished; null until the start-up purge has */
  lastIpPurgeAt: Date | null;
  lastIpPurgeCount: number | null;
}

export class IpRetentionService {
  private lastPurgeAt: Date | null = null;
  private lastPurgeCount: number | null = null;

  constructor(private readonly deps: IpRetentionDeps) {}

  /** Clears the `ip` of entries created before `asOf` (default now) minus the retention; answers how many. */
  async purge(actor: Actor, { asOf }: { asOf?: Date } = {}): Promise<number> {
    const from = asOf ?? this.deps.clock.now();
    return this.deps.audit.clearIpsBefore(actor, {
      before: new Date(from.getTime() - this.deps.retentionDays * DAY_MS),
    });
  }

  /** A purge of this instance's schedule (start-up and every 24 h): recorded for GET /admin/privacy. */
  async scheduledPurge(actor: Actor): Promise<number> {
    const count = await this.purge(actor);
    this.lastPurgeAt = this.deps.clock.now();
    this.lastPurgeCount = count;
    return count;
  }

  /** GET /admin/privacy (admins; the router checks the role): the retention and this instance's last purge. */
  status(_actor: Actor): IpPurgeStatus {
    return {
      activityLogIpRetentionDays: this.deps.retentionDays,
      lastIpPurgeAt: this.lastPurgeAt,
      lastIpPurgeCount: this.lastPurgeCount,
    };
  }
}

import type { PrismaClient } from '../../generated/prisma/client.js';
import type { Clock } from '../../lib/clock.js';

/**
 * Retention of client addresses (docs/privacy.md): activity-log entries older than
 * ACTIVITY_LOG_IP_RETENTION_DAYS lose their `ip` (the entry stays). One UPDATE, idempotent and
 * safe with several instances (a second purge finds nothing left to clear). The schedule is
 * ip-retention.job.ts; the CLI's privacy:purge-ips runs `purge` once with its own `asOf`.
 */

const DAY_MS = 24 * 60 * 60 * 1000;

export interface IpRetentionDeps {
  prisma: PrismaClient;
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

  /** Clears the `ip` of entries created before `asOf` minus the retention; answers how many. */
  async purge(asOf: Date = this.deps.clock.now()): Promise<number> {
    const cutoff = new Date(asOf.getTime() - this.deps.retentionDays * DAY_MS);
    const { count } = await this.deps.prisma.activityLog.updateMany({
      where: { createdAt: { lt: cutoff }, ip: { not: null } },
      data: { ip: null },
    });
    return count;
  }

  /** A purge of this instance's schedule (start-up and every 24 h): recorded for GET /admin/privacy. */
  async scheduledPurge(): Promise<number> {
    const count = await this.purge();
    this.lastPurgeAt = this.deps.clock.now();
    this.lastPurgeCount = count;
    return count;
  }

  /** GET /admin/privacy */
  status(): IpPurgeStatus {
    return {
      activityLogIpRetentionDays: this.deps.retentionDays,
      lastIpPurgeAt: this.lastPurgeAt,
      lastIpPurgeCount: this.lastPurgeCount,
    };
  }
}

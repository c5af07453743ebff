import PgBoss from 'pg-boss';
import { systemActor } from '../../lib/actor.js';
import type { Logger } from '../../lib/logger.js';
import type { IpRetentionService } from './ip-retention.service.js';

/**
 * The schedule of the IP purge (docs/privacy.md), on pg-boss like the mail queue
 * (src/lib/mail-queue.ts) but in an instance of its own: a purge once at start, in the
 * background (readiness does not wait for it), then a pg-boss cron job once a day. pg-boss
 * creates each cron slot's job once for all instances (its schedule table is shared), and one
 * worker runs it; the purge itself is idempotent, so a purge that runs twice changes nothing.
 *
 * Errors never escape: pg-boss's own errors are logged, and a purge that fails is logged and
 * tried again at the next slot.
 */

export const IP_PURGE_QUEUE = 'privacy-ip-purge';
/** every day at 03:17 UTC (an odd minute, away from the full hour other jobs like) */
export const IP_PURGE_CRON = '17 3 * * *';

export interface IpPurgeScheduleDeps {
  retention: Pick<IpRetentionService, 'scheduledPurge'>;
  logger: Logger;
  connectionString: string;
  /** the queue name (tests give each file its own) */
  queue?: string;
  cron?: string;
}

export class IpPurgeSchedule {
  private readonly boss: PgBoss;
  private readonly queue: string;
  private readonly cron: string;
  private started = false;
  /** settles when pg-boss started (or failed to); stop waits for it */
  private ready: Promise<void> = Promise.resolve();

  private readonly logger: Logger;

  constructor(private readonly deps: IpPurgeScheduleDeps) {
    this.logger = deps.logger;
    this.queue = deps.queue ?? IP_PURGE_QUEUE;
    this.cron = deps.cron ?? IP_PURGE_CRON;
    this.boss = new PgBoss({ connectionString: deps.connectionString, max: 2, application_name: 'wcs-privacy' });
    this.boss.on('error', (err: Error) =>
      this.logger.warn({ reason: err.message }, 'IP purge schedule: database error (pg-boss retries)'),
    );
  }

  /** Runs the start-up purge in the background and starts the daily job; never rejects. */
  start(): void {
    if (this.started) return;
    this.started = true;
    void this.purge('start-up');
    this.ready = this.startBoss().catch((err: unknown) =>
      this.logger.error({ reason: (err as Error).message }, 'IP purge schedule could not start'),
    );
  }

  /** Stops the worker and closes pg-boss's pool (src/server.ts on shutdown). */
  async stop(timeoutMs = 2000): Promise<void> {
    if (!this.started) return;
    await this.ready;
    await this.boss.stop({ graceful: true, wait: true, timeout: timeoutMs }).catch((err: unknown) => {
      this.logger.warn({ reason: (err as Error).message }, 'IP purge schedule did not stop cleanly');
    });
  }

  private async startBoss(): Promise<void> {
    await this.boss.start();
    await this.boss.createQueue(this.queue, { name: this.queue, retryLimit: 0 });
    await this.boss.schedule(this.queue, this.cron, {}, { tz: 'UTC' });
    await this.boss.work(this.queue, async () => {
      await this.purge('scheduled');
    });
  }

  private async purge(trigger: string): Promise<void> {
    try {
      const cleared = await this.deps.retention.scheduledPurge(systemActor(`ip-purge:${trigger}`));
      this.logger.info({ trigger, cleared }, 'activity-log addresses past retention cleared');
    } catch (err) {
      this.logger.error({ trigger, reason: (err as Error).message }, 'IP purge failed (tried again at the next slot)');
    }
  }
}

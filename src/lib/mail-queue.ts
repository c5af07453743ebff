import PgBoss from 'pg-boss';
import type { Logger } from './logger.js';
import type { Mail, Mailer } from './mailer.js';

/**
 * Durable outgoing mail (issue 16): mails are jobs in PostgreSQL (pg-boss, schema `pgboss`), sent
 * by a worker that retries with backoff, so a restart, a crash or an SMTP outage loses nothing.
 *
 * Delivery is at least once: a mail is marked done only after the SMTP server accepted it. If the
 * process dies after the acceptance and before the mark (or the SMTP server accepts after our
 * timeout), the job runs again and the recipient gets the same mail twice (same subject and text,
 * the same link or code: both copies work). See the README "Outgoing mail".
 *
 * `enqueue(mail, tx)` writes the job in the caller's Prisma transaction, so the mail exists if and
 * only if the user change commits. Without a transaction the job is written at once.
 */

/** Runs SQL in a Prisma interactive transaction (`tx` of `prisma.$transaction(async (tx) => …)`). */
export interface RawSqlTransaction {
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Promise<T>;
}

export interface MailQueueSettings {
  /** how often a failed mail is tried again before the job is marked failed */
  retryLimit: number;
  /** the first retry's delay; each further one doubles it (pg-boss backoff, with jitter) */
  retryDelaySeconds: number;
  /** how often an idle worker looks for new mail */
  pollingIntervalSeconds: number;
}

export const MAIL_QUEUE = 'mail';
const SMTP_EXPIRE_SECONDS = 120;

interface MailJob {
  mail: Mail;
}

/** pg-boss's `db` option: its SQL through the caller's transaction (values: null for undefined, JSON for objects). */
function transactionExecutor(tx: RawSqlTransaction): PgBoss.Db {
  return {
    executeSql: async (text, values) => {
      const params = values.map((v: unknown) => (v === undefined ? null : v !== null && typeof v === 'object' && !(v instanceof Date) ? JSON.stringify(v) : v));
      return { rows: await tx.$queryRawUnsafe<unknown[]>(text, ...params) };
    },
  };
}

export class MailQueue {
  private readonly boss: PgBoss | undefined;
  private ready: Promise<void> | undefined;
  private working = false;

  /** Without a connection string (the embedded database) mails are sent at once, as before. */
  constructor(
    connectionString: string | undefined,
    private readonly settings: MailQueueSettings,
    private readonly mailer: Mailer,
    private readonly logger: Logger,
  ) {
    if (!connectionString) return;
    this.boss = new PgBoss({ connectionString, max: 2, schedule: false, application_name: 'wcs-mail-queue' });
    this.boss.on('error', (err: Error) => this.logger.warn({ reason: err.message }, 'mail queue: database error (pg-boss retries)'));
  }

  get durable(): boolean {
    return this.boss !== undefined;
  }

  /** Creates pg-boss's schema and the mail queue once (idempotent, safe with several instances). */
  private start(): Promise<void> {
    const boss = this.boss;
    if (!boss) return Promise.resolve();
    this.ready ??= (async () => {
      await boss.start();
      await boss.createQueue(MAIL_QUEUE, {
        name: MAIL_QUEUE,
        retryLimit: this.settings.retryLimit,
        retryDelay: this.settings.retryDelaySeconds,
        retryBackoff: true,
        expireInSeconds: SMTP_EXPIRE_SECONDS,
      });
    })().catch((err: unknown) => {
      this.ready = undefined;
      throw err;
    });
    return this.ready;
  }

  /**
   * Queues a mail; with `tx`, inside that transaction (the mail goes out only if it commits).
   * Returns the job id (undefined without a durable queue).
   */
  async enqueue(mail: Mail, tx?: RawSqlTransaction): Promise<string | undefined> {
    if (!this.boss) {
      void this.mailer.sendInBackground(mail);
      return undefined;
    }
    await this.start();
    const id = await this.boss.send(MAIL_QUEUE, { mail } satisfies MailJob, tx ? { db: transactionExecutor(tx) } : {});
    return id ?? undefined;
  }

  /** Starts sending queued mail in this process (src/server.ts; tests start it themselves). */
  async startWorker(): Promise<void> {
    if (!this.boss || this.working) return;
    await this.start();
    this.working = true;
    await this.boss.work<MailJob>(MAIL_QUEUE, { batchSize: 1, pollingIntervalSeconds: this.settings.pollingIntervalSeconds }, async ([job]) => {
      try {
        await this.mailer.send(job.data.mail);
      } catch (err) {
        // pg-boss records the failure and schedules the retry
        this.logger.warn({ jobId: job.id, to: job.data.mail.to, subject: job.data.mail.subject, reason: (err as Error).message }, 'mail not sent; will retry');
        throw err;
      }
      this.logger.info({ jobId: job.id, to: job.data.mail.to, subject: job.data.mail.subject }, 'mail sent');
    });
  }

  /** Stops the worker (waiting up to `timeoutMs` for a mail being sent) and closes pg-boss's pool. */
  async stop(timeoutMs = 2000): Promise<void> {
    if (!this.boss || !this.ready) return;
    await this.ready.catch(() => undefined);
    await this.boss.stop({ graceful: true, wait: true, timeout: timeoutMs }).catch((err: unknown) => {
      this.logger.warn({ reason: (err as Error).message }, 'mail queue did not stop cleanly');
    });
  }
}

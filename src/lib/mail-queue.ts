import PgBoss from 'pg-boss';
import { reasonOf, WarnOnce } from './connection-loss.js';
import type { Logger } from './logger.js';
import { isDatabaseUnavailable } from './prisma-errors.js';
import type { Mail, Mailer } from './mailer.js';
import type { Prisma, PrismaClient } from '../generated/prisma/client.js';

/**
 * Durable outgoing mail (issue 16): mails are jobs in PostgreSQL (pg-boss, schema `pgboss`), sent
 * by a worker that retries with backoff, so a restart, a crash or an SMTP outage loses nothing.
 *
 * Delivery is at least once: a mail is marked done only after the SMTP server accepted it. If the
 * process dies after the acceptance and before the mark (or the SMTP server accepts after our
 * timeout), the job runs again and the recipient gets the same mail twice (same subject and text,
 * the same link or code: both copies work). See the README "Outgoing mail".
 *
 * `transaction(db, change)` writes the jobs in the transaction of the user change, so a mail
 * exists if and only if the change commits.
 */

export interface MailQueueSettings {
  /** the pg-boss queue (one per deployment; the tests give each file its own) */
  name: string;
  /** how often a failed mail is tried again before the job is marked failed */
  retryLimit: number;
  /** the first retry's delay; each further one doubles it (pg-boss backoff, with jitter) */
  retryDelaySeconds: number;
  /** how often an idle worker looks for new mail */
  pollingIntervalSeconds: number;
}

/** What a change made in `MailQueue.transaction` answers: its result and the mails it sends. */
export interface ChangeWithMail<T> {
  result: T;
  mails: Mail[];
}

const SMTP_EXPIRE_SECONDS = 120;
const CREATE_QUEUE_ATTEMPTS = 8;
/** mails fetched and sent together by one worker */
const MAILS_PER_FETCH = 10;
/**
 * How long the worker keeps trying to record the outcome of sent mails while the database is
 * unreachable (issue 23): past it the jobs stay active and pg-boss retries them after they expire
 * (SMTP_EXPIRE_SECONDS), so a mail may then arrive twice (at least once, see above).
 */
const RECORD_OUTCOME_FOR_MS = 60_000;

interface MailJob {
  mail: Mail;
}

/** pg-boss's `db` option: its SQL through the caller's transaction (values: null for undefined, JSON for objects). */
function transactionExecutor(tx: Prisma.TransactionClient): PgBoss.Db {
  return {
    executeSql: async (text, values) => {
      const params = values.map((v: unknown) => (v === undefined ? null : v !== null && typeof v === 'object' && !(v instanceof Date) ? JSON.stringify(v) : v));
      return { rows: await tx.$queryRawUnsafe<unknown[]>(text, ...params) };
    },
  };
}

export class MailQueue {
  private readonly boss: PgBoss;
  private ready: Promise<void> | undefined;
  private working = false;
  private workerId: string | undefined;
  private stopping = false;
  /** database trouble is logged once per outage, not per poll (issue 23) */
  private readonly warnings: WarnOnce;

  constructor(
    connectionString: string,
    private readonly settings: MailQueueSettings,
    private readonly mailer: Mailer,
    private readonly logger: Logger,
  ) {
    this.boss = new PgBoss({ connectionString, max: 2, schedule: false, application_name: 'wcs-mail-queue' });
    this.warnings = new WarnOnce(logger);
    this.boss.on('error', (err: Error) => {
      const reason = reasonOf(err);
      if (isDatabaseUnavailable(err)) this.warnings.warn('unavailable', { reason }, 'mail queue: database unavailable (pg-boss retries)');
      else this.warnings.warn(`error:${reason}`, { reason }, 'mail queue: database error (pg-boss retries)');
    });
  }

  /** Creates pg-boss's schema and the mail queue once (idempotent, safe with several instances). */
  private start(): Promise<void> {
    this.ready ??= (async () => {
      await this.boss.start();
      // Instances starting together can deadlock in createQueue (PostgreSQL aborts one of them
      // with 40P01): that one tries again; the queue exists by then or is created on the retry.
      for (let attempt = 1; ; attempt++) {
        try {
          await this.boss.createQueue(this.settings.name, {
            name: this.settings.name,
            retryLimit: this.settings.retryLimit,
            retryDelay: this.settings.retryDelaySeconds,
            retryBackoff: true,
            expireInSeconds: SMTP_EXPIRE_SECONDS,
          });
          return;
        } catch (err) {
          if ((err as { code?: string }).code !== '40P01' || attempt >= CREATE_QUEUE_ATTEMPTS) throw err;
          await new Promise((resolve) => setTimeout(resolve, 50 * attempt + Math.random() * 100));
        }
      }
    })().catch((err: unknown) => {
      this.ready = undefined;
      throw err;
    });
    return this.ready;
  }

  /**
   * Runs `change` in a transaction of `db` and queues the mails it answers in that same
   * transaction: the change and its mails commit together or not at all. The queue is prepared
   * before the transaction opens (no schema work while it holds a connection), and a worker of
   * this process is woken after the commit, so the mail usually leaves at once.
   */
  async transaction<T>(db: PrismaClient, change: (tx: Prisma.TransactionClient) => Promise<ChangeWithMail<T>>): Promise<T> {
    await this.start();
    const result = await db.$transaction(async (tx) => {
      const changed = await change(tx);
      const executor = transactionExecutor(tx);
      for (const mail of changed.mails) await this.boss.send(this.settings.name, { mail } satisfies MailJob, { db: executor });
      return changed.result;
    });
    if (this.workerId) this.boss.notifyWorker(this.workerId);
    return result;
  }

  /** Starts sending queued mail in this process (src/server.ts; tests start it themselves). */
  async startWorker(): Promise<void> {
    if (this.working) return;
    this.working = true;
    await this.start();
    const options = { batchSize: MAILS_PER_FETCH, pollingIntervalSeconds: this.settings.pollingIntervalSeconds };
    this.workerId = await this.boss.work<MailJob>(this.settings.name, options, (jobs) => this.sendBatch(jobs));
  }

  /**
   * Sends a fetched batch side by side, then records every outcome itself: a sent mail is
   * completed, a refused one failed on its own (pg-boss schedules its retry). It never throws, so
   * pg-boss's own completion that follows finds nothing left to change. When the database is gone
   * meanwhile (issue 23) the outcome is recorded once it is back (see RECORD_OUTCOME_FOR_MS), so a
   * mail sent during an outage is not sent again. A full batch means more may be waiting, so the
   * worker fetches again at once instead of after its polling interval.
   */
  private async sendBatch(jobs: PgBoss.Job<MailJob>[]): Promise<void> {
    const outcomes = await Promise.allSettled(jobs.map((job) => this.mailer.send(job.data.mail)));
    const sent: string[] = [];
    const failures: Array<() => Promise<unknown>> = [];
    outcomes.forEach((outcome, i) => {
      const { id, data } = jobs[i];
      const about = { jobId: id, to: data.mail.to, subject: data.mail.subject };
      if (outcome.status === 'fulfilled') {
        sent.push(id);
        return this.logger.info(about, 'mail sent');
      }
      const reason = (outcome.reason as Error).message;
      this.logger.warn({ ...about, reason }, 'mail not sent; will retry');
      failures.push(() => this.boss.fail(this.settings.name, id, { message: reason }));
    });
    const records = [...failures];
    if (sent.length) records.push(() => this.boss.complete(this.settings.name, sent));
    await Promise.all(records.map((record) => this.recordOutcome(record)));
    if (jobs.length === MAILS_PER_FETCH && this.workerId) this.boss.notifyWorker(this.workerId);
  }

  /** Runs `record` (a complete or fail), trying again while the database is unreachable. */
  private async recordOutcome(record: () => Promise<unknown>): Promise<void> {
    const started = Date.now();
    for (let delay = 250; ; delay = Math.min(delay * 2, 2000)) {
      try {
        await record();
        return;
      } catch (err) {
        const transient = isDatabaseUnavailable(err);
        if (!transient || this.stopping || Date.now() - started > RECORD_OUTCOME_FOR_MS) {
          this.logger.warn({ reason: reasonOf(err) }, 'mail queue: could not record a mail outcome; the job is retried after it expires');
          return;
        }
        this.warnings.warn('record', { reason: reasonOf(err) }, 'mail queue: database unavailable; recording the outcome of sent mail once it is back');
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  }

  /** Stops the worker (waiting up to `timeoutMs` for a mail being sent) and closes pg-boss's pool. */
  async stop(timeoutMs = 2000): Promise<void> {
    if (!this.ready) return;
    this.workerId = undefined;
    this.stopping = true;
    await this.ready.catch(() => undefined);
    await this.boss.stop({ graceful: true, wait: true, timeout: timeoutMs }).catch((err: unknown) => {
      this.logger.warn({ reason: (err as Error).message }, 'mail queue did not stop cleanly');
    });
  }
}

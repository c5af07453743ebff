import PgBoss from 'pg-boss';
import { reasonOf, WarnOnce } from './connection-loss.js';
import type { Logger } from './logger.js';
import { isDatabaseUnavailable } from './prisma-errors.js';
import type { Mail, Mailer } from './mailer.js';
import type { MailKind } from './metrics.js';
import type { Prisma, PrismaClient } from '../generated/prisma/client.js';

/**
 * Durable outgoing mail (issue 16): mails are jobs in PostgreSQL (pg-boss, schema `pgboss`), sent
 * by a worker that retries with backoff, so a restart, a crash or an SMTP outage loses nothing.
 *
 * Delivery is at least once: a mail is marked done only after the SMTP server accepted it. If the
 * process dies after the acceptance and before the mark (or the SMTP server accepts after our
 * timeout), the job runs again and the recipient gets the mail twice. See docs/operations.md "Outgoing mail".
 *
 * No secret at rest (docs/security-hardening.md): a job holds a reference (`MailReference`: kind,
 * user, addresses), never a link, token or code. The worker renders the mail when it sends it
 * (`MailRenderer`, which creates the secrets and stores their hashes), and deletes the job once the
 * SMTP server accepted the mail. A retry renders again with new secrets: the delivered mail's work.
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

/** A queued mail: what to send to whom, never a secret (the renderer creates those at send time). */
export interface MailReference {
  kind: MailKind;
  userId: number;
  /** the address a verification is for; the new address of an e-mail change */
  newEmail?: string;
  /** the address before an e-mail change (the notice goes there) */
  previousEmail?: string;
}

/** Renders a reference into the mail to send now, or undefined when it no longer applies (the job is dropped). */
export type MailRenderer = (ref: MailReference) => Promise<Mail | undefined>;

/** What a change made in `MailQueue.transaction` answers: its result and the mails it sends. */
export interface ChangeWithMail<T> {
  result: T;
  mails: MailReference[];
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

type MailJob = MailReference;

/** pg-boss's `db` option: its SQL through the caller's transaction (values: null for undefined, JSON for objects). */
function transactionExecutor(tx: Prisma.TransactionClient): PgBoss.Db {
  return {
    executeSql: async (text, values) => {
      const params = values.map((v: unknown) =>
        v === undefined ? null : v !== null && typeof v === 'object' && !(v instanceof Date) ? JSON.stringify(v) : v,
      );
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
    private readonly render: MailRenderer,
  ) {
    this.boss = new PgBoss({ connectionString, max: 2, schedule: false, application_name: 'wcs-mail-queue' });
    this.warnings = new WarnOnce(logger);
    this.boss.on('error', (err: Error) => {
      const reason = reasonOf(err);
      if (isDatabaseUnavailable(err))
        this.warnings.warn('unavailable', { reason }, 'mail queue: database unavailable (pg-boss retries)');
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
  async transaction<T>(
    db: PrismaClient,
    change: (tx: Prisma.TransactionClient) => Promise<ChangeWithMail<T>>,
  ): Promise<T> {
    await this.start();
    const result = await db.$transaction(async (tx) => {
      const changed = await change(tx);
      const executor = transactionExecutor(tx);
      for (const mail of changed.mails)
        await this.boss.send(this.settings.name, { ...mail } satisfies MailJob, { db: executor });
      return changed.result;
    });
    if (this.workerId) this.boss.notifyWorker(this.workerId);
    return result;
  }

  /**
   * Account deletion (src/modules/privacy), inside the caller's transaction: the user's mails
   * that wait in this queue (created or waiting for a retry) are dropped. Answers how many. Jobs
   * hold references (`{ kind, userId, ... }`), so the user id finds every mail to any of the
   * account's addresses.
   */
  async dropQueuedFor(tx: Prisma.TransactionClient, userId: number): Promise<number> {
    const [{ present }] = await tx.$queryRaw<
      { present: boolean }[]
    >`SELECT to_regclass('pgboss.job') IS NOT NULL AS present`;
    if (!present) return 0;
    return tx.$executeRaw`
      DELETE FROM pgboss.job
      WHERE name = ${this.settings.name} AND state IN ('created', 'retry') AND data ->> 'userId' = ${String(userId)}`;
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
   * Sends a fetched batch side by side (each reference rendered with fresh secrets first), then
   * records every outcome itself: a sent mail's job is deleted, as is the job of a reference that
   * renders nothing; a refused one is failed on its own (pg-boss schedules its retry). It never
   * throws, so pg-boss's own completion that follows finds nothing left to change. When the
   * database is gone meanwhile (docs/reliability.md) the outcome is recorded once it is back (see
   * RECORD_OUTCOME_FOR_MS), so a mail sent during an outage is not sent again. A full batch means
   * more may be waiting, so the worker fetches again at once instead of after its polling interval.
   */
  private async sendBatch(jobs: PgBoss.Job<MailJob>[]): Promise<void> {
    const outcomes = await Promise.allSettled(jobs.map((job) => this.renderAndSend(job)));
    const done: string[] = [];
    const failures: Array<() => Promise<unknown>> = [];
    outcomes.forEach((outcome, i) => {
      const { id, data } = jobs[i];
      const about = { jobId: id, kind: data.kind, userId: data.userId };
      if (outcome.status === 'fulfilled') {
        done.push(id);
        return this.logger.info(
          { ...about, ...outcome.value },
          outcome.value ? 'mail sent' : 'mail dropped: no longer applies',
        );
      }
      const reason = (outcome.reason as Error).message;
      this.logger.warn({ ...about, reason }, 'mail not sent; will retry');
      failures.push(() => this.boss.fail(this.settings.name, id, { message: reason }));
    });
    const records = [...failures];
    if (done.length) records.push(() => this.boss.deleteJob(this.settings.name, done));
    await Promise.all(records.map((record) => this.recordOutcome(record)));
    if (jobs.length === MAILS_PER_FETCH && this.workerId) this.boss.notifyWorker(this.workerId);
  }

  /** Runs `record` (a delete or fail), trying again while the database is unreachable. */
  private async recordOutcome(record: () => Promise<unknown>): Promise<void> {
    const started = Date.now();
    for (let delay = 250; ; delay = Math.min(delay * 2, 2000)) {
      try {
        await record();
        return;
      } catch (err) {
        const transient = isDatabaseUnavailable(err);
        if (!transient || this.stopping || Date.now() - started > RECORD_OUTCOME_FOR_MS) {
          this.logger.warn(
            { reason: reasonOf(err) },
            'mail queue: could not record a mail outcome; the job is retried after it expires',
          );
          return;
        }
        this.warnings.warn(
          'record',
          { reason: reasonOf(err) },
          'mail queue: database unavailable; recording the outcome of sent mail once it is back',
        );
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  }

  /**
   * The queue's backlog for the metrics (`wcs_mail_queue_mails`): mails waiting to be sent and
   * mails given up on. Undefined while pg-boss has not been started in this process.
   */
  async stats(): Promise<{ queued: number; failed: number } | undefined> {
    if (!this.ready) return undefined;
    await this.ready;
    const queued = await this.boss.getQueueSize(this.settings.name);
    const { rows } = await this.boss
      .getDb()
      .executeSql("SELECT count(*)::int AS failed FROM pgboss.job WHERE name = $1 AND state = 'failed'", [
        this.settings.name,
      ]);
    return { queued: queued ?? 0, failed: (rows[0] as { failed: number }).failed };
  }

  /** Renders a job's mail (fresh secrets) and sends it; answers where it went, or undefined when nothing applied. */
  private async renderAndSend(job: PgBoss.Job<MailJob>): Promise<{ to: string; subject: string } | undefined> {
    const mail = await this.render(job.data);
    if (!mail) return undefined;
    await this.mailer.send(mail);
    return { to: mail.to, subject: mail.subject };
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

import { timingSafeEqual } from 'node:crypto';
import type { PrismaClient } from '../../generated/prisma/client.js';
import type { Actor } from '../../lib/actor.js';
import type { Clock } from '../../lib/clock.js';
import { AppError } from '../../lib/errors.js';
import { sha256 } from '../../lib/ids.js';
import type { MailQueue } from '../../lib/mail-queue.js';
import type { ActivityLogService } from '../activity-log/activity-log.service.js';
import type { UserRecords } from '../users/user-records.js';
import { actingAs } from './account-lock.js';
import { accountMail } from './account-mails.js';
import type { EmailInput, VerifyCodeInput, VerifyEmailQuery } from './auth.schemas.js';
import { clearedVerification, MAX_CODE_ATTEMPTS } from './auth.tokens.js';
import { FailureLogThrottle } from './failure-log-throttle.js';

/** Failed link verifications are logged once per IP address and this interval. */
export const VERIFY_FAILURE_LOG_INTERVAL_MS = 60_000;

export const RESEND_MESSAGE = 'If an unverified account exists for this email, a new verification email has been sent';

export interface EmailVerificationDeps {
  db: PrismaClient;
  audit: Pick<ActivityLogService, 'record'>;
  mail: Pick<MailQueue, 'transaction'>;
  clock: Clock;
  /** the verification columns of `User` (owned by the users feature) */
  users: Pick<UserRecords, 'markEmailVerified' | 'countCodeAttempt'>;
}

function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * E-mail verification by link or code, and resending the verification (the verification
 * columns of `User`). Every outcome is audited (category "auth"); the mail is queued
 * (src/lib/mail-queue.ts) and its link and code created when it is sent (account-mails.ts).
 */
export class EmailVerificationService {
  private readonly verifyFailureLog = new FailureLogThrottle(VERIFY_FAILURE_LOG_INTERVAL_MS);

  constructor(private readonly deps: EmailVerificationDeps) {}

  /**
   * Verifies the e-mail by the link token: unknown or expired token → 400
   * INVALID_VERIFICATION_TOKEN. Single use even under concurrency (conditional update on the
   * same token hash). Failures are anonymous and cheap to send, so they are logged at most
   * once per IP address and minute, with the number of failures the entry stands for.
   */
  async verifyEmailToken(actor: Actor, { token }: VerifyEmailQuery): Promise<void> {
    const hash = sha256(token);
    const user = await this.deps.db.user.findUnique({
      where: { verificationTokenHash: hash },
      select: { id: true, username: true, verificationExpiresAt: true },
    });
    const audit = (success: boolean, failures?: number) =>
      this.deps.audit.record(actingAs(actor, user), {
        category: 'auth',
        action: 'email_verify',
        success,
        metadata: failures === undefined ? { method: 'link' } : { method: 'link', failures },
      });
    if (
      !user ||
      !user.verificationExpiresAt ||
      user.verificationExpiresAt.getTime() <= this.deps.clock.now().getTime()
    ) {
      const failures = this.verifyFailureLog.take(actor.ip ?? 'unknown', this.deps.clock.now().getTime());
      if (failures !== undefined) await audit(false, failures);
      throw new AppError('INVALID_VERIFICATION_TOKEN');
    }
    const verified = await this.deps.users.markEmailVerified(
      user.id,
      { verificationTokenHash: hash },
      clearedVerification,
    );
    if (!verified) throw new AppError('INVALID_VERIFICATION_TOKEN');
    await audit(true);
  }

  /**
   * Verifies the e-mail by the 6-digit code. Every attempt is counted first (atomic UPDATE …
   * RETURNING), then compared, so at most MAX_CODE_ATTEMPTS guesses per issued code, also with
   * parallel requests; unknown address, no live code, too many attempts or a wrong code → 400
   * INVALID_VERIFICATION_CODE.
   */
  async verifyEmailCode(actor: Actor, { email, code }: VerifyCodeInput): Promise<void> {
    const row = await this.deps.users.countCodeAttempt(email, MAX_CODE_ATTEMPTS);
    const audit = (success: boolean) =>
      this.deps.audit.record(actingAs(actor, row), {
        category: 'auth',
        action: 'email_verify',
        success,
        metadata: { method: 'code' },
      });
    if (!row || !sameHash(row.verificationCodeHash, sha256(code))) {
      await audit(false);
      throw new AppError('INVALID_VERIFICATION_CODE');
    }
    const verified = await this.deps.users.markEmailVerified(
      row.id,
      { verificationCodeHash: row.verificationCodeHash },
      clearedVerification,
    );
    if (!verified) throw new AppError('INVALID_VERIFICATION_CODE');
    await audit(true);
  }

  /**
   * Queues a new verification link and code (the old ones stop working when it is sent). Answers the
   * same whether or not the address exists or is already verified (no account enumeration).
   */
  async resendVerification(actor: Actor, { email }: EmailInput): Promise<void> {
    const user = await this.deps.db.user.findUnique({
      where: { email },
      select: { id: true, username: true, email: true, emailVerified: true },
    });
    if (!user || user.emailVerified) {
      await this.deps.audit.record(actingAs(actor, user), {
        category: 'auth',
        action: 'verification_resend',
        success: false,
        metadata: { reason: user ? 'already_verified' : 'unknown_email' },
      });
      return;
    }
    await this.deps.mail.transaction(this.deps.db, async () => ({
      result: undefined,
      mails: [accountMail.verification(user.id, user.email)],
    }));
    await this.deps.audit.record(actingAs(actor, user), { category: 'auth', action: 'verification_resend' });
  }
}

import { timingSafeEqual } from 'node:crypto';
import type { PrismaClient } from '../../generated/prisma/client.js';
import type { Actor } from '../../lib/actor.js';
import type { TokenAuthenticator } from '../../lib/auth.js';
import type { Clock } from '../../lib/clock.js';
import { AppError } from '../../lib/errors.js';
import { sha256 } from '../../lib/ids.js';
import type { MailQueue } from '../../lib/mail-queue.js';
import type { Metrics } from '../../lib/metrics.js';
import type { PasswordHasher } from '../../lib/password-hasher.js';
import { isUniqueViolation } from '../../lib/prisma-errors.js';
import { avatarUrlFor, userObjectSelect } from '../../lib/user-summary.js';
import type { Notifier } from '../../realtime/notifier.js';
import type { ActivityLogService } from '../activity-log/activity-log.service.js';
import type { LoginInput, RegisterInput } from './auth.schemas.js';
import { FailureLogThrottle } from './failure-log-throttle.js';
import { accountMail } from './account-mails.js';
import { clearedVerification, MAX_CODE_ATTEMPTS } from './auth.tokens.js';
import type { CaptchaVerifier } from './captcha.js';

export interface AuthSettings {
  /** failed logins in a row that lock the account, and for how long */
  lockout: { maxAttempts: number; minutes: number };
  /** base of the links in verification and reset mails */
  frontendUrl: string;
  /** PUBLIC_URL: base of the avatar URL stored at registration */
  publicUrl: string;
  /** CAPTCHA on registration (off when not configured) */
  captcha?: Pick<CaptchaVerifier, 'verify'>;
}

/** Whether a user row is suspended at `now`: suspendedAt set and no end, or an end still ahead. */
export function isSuspended(user: { suspendedAt: Date | null; suspendedUntil: Date | null }, now: Date): boolean {
  return user.suspendedAt !== null && (user.suspendedUntil === null || user.suspendedUntil.getTime() > now.getTime());
}

/** Failed link verifications are logged once per IP address and this interval. */
export const VERIFY_FAILURE_LOG_INTERVAL_MS = 60_000;

export const RESEND_MESSAGE = 'If an unverified account exists for this email, a new verification email has been sent';
export const RESET_REQUEST_MESSAGE = 'If an account exists for this email, a password reset link has been sent';

interface LoginAttemptRow {
  id: number;
  username: string;
  passwordHash: string;
  /** attempts counted in this lock window, this one included: its number among them */
  failedLoginAttempts: number;
}

/**
 * Issue 23, item 3: at most LOCKOUT_MAX_ATTEMPTS attempts of an account are compared at once; a
 * further one waits (polling every LOGIN_WAIT_POLL_MS) until one of them ended, at most
 * LOGIN_WAIT_MS (then 503 SERVICE_UNAVAILABLE with Retry-After, a shed). Attempts counted more
 * than LOGIN_STALE_SECONDS ago whose outcome never came (a process died mid-login) no longer
 * hold the others back.
 */
const LOGIN_WAIT_MS = 10_000;
const LOGIN_WAIT_POLL_MS = 50;
const LOGIN_STALE_SECONDS = 30;

/** The actor of an anonymous request, named after the account it concerns (null when none). */
const actingAs = (actor: Actor, user: { id: number; username: string } | null | undefined): Actor => ({
  ...actor,
  userId: user?.id ?? null,
  username: user?.username ?? null,
});

/** 423 ACCOUNT_LOCKED with retryAfter and Retry-After (also used by src/modules/privacy for the current password). */
export function lockedError(remainingMs: number): AppError {
  // whole milliseconds: lockedUntil is stored with millisecond precision, now() has microseconds
  remainingMs = Math.floor(remainingMs);
  const retryAfter = Math.max(1, Math.ceil(remainingMs / 1000));
  const minutes = Math.max(1, Math.ceil(remainingMs / 60_000));
  return new AppError('ACCOUNT_LOCKED', {
    message: `Account is locked. Try again in ${minutes} minute(s).`,
    extra: { retryAfter },
    headers: { 'Retry-After': String(retryAfter) },
  });
}

function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Accounts without a session: registration, login with lockout, e-mail verification (link or
 * code), resending the verification and password reset. Every outcome is audited (category
 * "auth"); mails are queued in the transaction of the change they belong to (src/lib/mail-queue.ts)
 * and sent by the queue's worker, so the mail server never slows down nor fails a request.
 */
export class AuthService {
  private readonly verifyFailureLog = new FailureLogThrottle(VERIFY_FAILURE_LOG_INTERVAL_MS);

  constructor(
    private readonly db: PrismaClient,
    private readonly audit: ActivityLogService,
    private readonly tokens: TokenAuthenticator,
    private readonly hasher: PasswordHasher,
    private readonly notifier: Notifier,
    private readonly mail: MailQueue,
    private readonly clock: Clock,
    private readonly metrics: Metrics,
    private readonly settings: AuthSettings,
  ) {}

  /**
   * Creates the account from whitelisted fields only (isAdmin / emailVerified in the body never
   * reach the database), mails a verification link and code, answers the user object and a JWT.
   * The unique constraints decide, also for two concurrent registrations: 409 EMAIL_TAKEN, then
   * 409 USERNAME_TAKEN. The account and its verification mail commit together. With the CAPTCHA
   * on, `captchaToken` is verified first (after body validation, before anything is stored):
   * 400 CAPTCHA_FAILED, 503 CAPTCHA_UNAVAILABLE.
   */
  async register(actor: Actor, input: RegisterInput) {
    await this.settings.captcha?.verify(input.captchaToken, actor.ip);
    const passwordHash = await this.hasher.hash(input.password);
    let user;
    try {
      user = await this.mail.transaction(this.db, async (tx) => {
        const created = await tx.user.create({
          data: {
            username: input.username,
            email: input.email,
            passwordHash,
            avatar: avatarUrlFor(this.settings.publicUrl, input.username),
            firstName: input.firstName || null,
            lastName: input.lastName || null,
            registryId: input.registryId || null,
          },
          select: userObjectSelect,
        });
        // the link and code are created when the mail is sent (src/modules/auth/account-mails.ts)
        return { result: created, mails: [accountMail.verification(created.id, created.email)] };
      });
    } catch (err) {
      if (isUniqueViolation(err, 'email')) throw new AppError('EMAIL_TAKEN');
      if (isUniqueViolation(err, 'username')) throw new AppError('USERNAME_TAKEN');
      throw err;
    }
    await this.audit.record(actingAs(actor, user), { category: 'auth', action: 'register' });
    return { token: this.tokens.sign(user), user };
  }

  /**
   * Checks in order: unknown e-mail → 401 INVALID_CREDENTIALS (after a dummy compare, so
   * timing does not tell); locked account → 423 ACCOUNT_LOCKED with Retry-After; otherwise the
   * attempt is counted BEFORE the password is compared (one conditional UPDATE, so parallel
   * attempts cannot all pass the lock check: at most LOCKOUT_MAX_ATTEMPTS are compared at once,
   * further ones wait for them). Then a wrong password whose count reached the maximum locks the
   * account (423), a wrong one below it answers 401, and a right one clears counter and lock: a
   * right password never locks an account, whatever runs beside it (issue 23). An attempt that
   * ends without a comparison (an error, e.g. the hasher is overloaded) gives its count back.
   * After a right password, a suspended account → 403 ACCOUNT_SUSPENDED with `until` (no token). The
   * suspension and the token version are read from the same row version as the token is signed
   * with, so a suspension committed during the login either refuses it or revokes the token it issued.
   */
  async login(actor: Actor, { email, password }: LoginInput) {
    const attempt = await this.reserveLoginAttempt(email);
    if (!attempt) throw await this.refusedLogin(actor, email, password);
    const who = actingAs(actor, attempt);
    let matches: boolean;
    try {
      matches = await this.hasher.compare(password, attempt.passwordHash);
    } catch (err) {
      await this.releaseLoginAttempt(attempt.id).catch(() => undefined);
      throw err;
    }
    if (!matches) throw await this.failedLogin(who, attempt);

    const { tokenVersion, suspendedAt, suspendedUntil, ...user } = await this.db.user.update({
      where: { id: attempt.id },
      data: { failedLoginAttempts: 0, lockedUntil: null },
      select: { ...userObjectSelect, tokenVersion: true, suspendedAt: true, suspendedUntil: true },
    });
    if (isSuspended({ suspendedAt, suspendedUntil }, this.clock.now())) {
      await this.audit.record(who, { category: 'auth', action: 'login_suspended', success: false });
      throw new AppError('ACCOUNT_SUSPENDED', { extra: { until: suspendedUntil?.toISOString() ?? null } });
    }
    await this.audit.record(who, { category: 'auth', action: 'login' });
    return { token: this.tokens.sign({ ...user, tokenVersion }), user };
  }

  /**
   * Counts a login attempt of an unlocked account in ONE atomic UPDATE (row lock: parallel
   * attempts are counted one after another) and answers its number. After an expired lock
   * counting starts again at 1. While LOCKOUT_MAX_ATTEMPTS counted attempts are still open (being
   * compared), this one waits for them (see LOGIN_WAIT_MS). Answers nothing for an unknown e-mail
   * or a locked account. The lock itself is set only by a wrong password (failedLogin).
   */
  private async reserveLoginAttempt(email: string): Promise<LoginAttemptRow | undefined> {
    const { maxAttempts } = this.settings.lockout;
    const waitUntil = Date.now() + LOGIN_WAIT_MS;
    for (;;) {
      const rows = await this.db.$queryRaw<LoginAttemptRow[]>`
        UPDATE "User" SET
          "failedLoginAttempts" = CASE WHEN "lockedUntil" IS NOT NULL THEN 1 ELSE "failedLoginAttempts" + 1 END,
          "lockedUntil" = NULL,
          "updatedAt" = now()
        WHERE "email" = ${email} AND ("lockedUntil" IS NULL OR "lockedUntil" <= now())
          AND ("lockedUntil" IS NOT NULL OR "failedLoginAttempts" < ${maxAttempts}
            OR "updatedAt" < now() - make_interval(secs => ${LOGIN_STALE_SECONDS}))
        RETURNING "id", "username", "passwordHash", "failedLoginAttempts"`;
      if (rows[0]) return rows[0];
      const user = await this.db.user.findUnique({ where: { email }, select: { lockedUntil: true } });
      // unknown, or locked by the attempts it waited for: refusedLogin answers
      if (!user || (user.lockedUntil && user.lockedUntil.getTime() > Date.now())) return undefined;
      if (Date.now() >= waitUntil) throw new AppError('SERVICE_UNAVAILABLE');
      await new Promise((resolve) => setTimeout(resolve, LOGIN_WAIT_POLL_MS));
    }
  }

  /** An attempt that ended without a comparison gives its count back (never below zero). */
  private async releaseLoginAttempt(userId: number): Promise<void> {
    await this.db.$executeRaw`
      UPDATE "User" SET "failedLoginAttempts" = GREATEST("failedLoginAttempts" - 1, 0)
      WHERE "id" = ${userId} AND ("lockedUntil" IS NULL OR "lockedUntil" <= now())`;
  }

  /**
   * A wrong password: the attempt whose number reached the maximum locks the account, unless a
   * right password reset the count meanwhile or the account is locked already. Answers the
   * remaining lock time when this attempt locked it.
   */
  private async lockAfterFailure(userId: number, attemptNumber: number): Promise<number | undefined> {
    const { maxAttempts, minutes } = this.settings.lockout;
    if (attemptNumber < maxAttempts) return undefined;
    const rows = await this.db.$queryRaw<Array<{ remainingMs: number }>>`
      UPDATE "User" SET "lockedUntil" = now() + make_interval(mins => ${minutes}::int)
      WHERE "id" = ${userId} AND "failedLoginAttempts" >= ${maxAttempts}
        AND ("lockedUntil" IS NULL OR "lockedUntil" <= now())
      RETURNING (EXTRACT(EPOCH FROM ("lockedUntil" - now())) * 1000)::float8 AS "remainingMs"`;
    return rows[0]?.remainingMs;
  }

  /** No attempt could be counted: 401 for an unknown e-mail (after a dummy compare), 423 while locked. */
  private async refusedLogin(actor: Actor, email: string, password: string): Promise<AppError> {
    this.metrics.loginFailed();
    const user = await this.db.user.findUnique({
      where: { email },
      select: { id: true, username: true, lockedUntil: true },
    });
    if (!user) {
      await this.hasher.compareWithDummy(password);
      await this.audit.record(actingAs(actor, null), {
        category: 'auth',
        action: 'login_failed',
        success: false,
        metadata: { reason: 'unknown_email' },
      });
      return new AppError('INVALID_CREDENTIALS');
    }
    await this.audit.record(actingAs(actor, user), { category: 'auth', action: 'login_locked', success: false });
    return lockedError(Math.max(1000, (user.lockedUntil?.getTime() ?? 0) - this.clock.now().getTime()));
  }

  /** A counted attempt with a wrong password: 423 when it locked the account, else 401. */
  private async failedLogin(who: Actor, attempt: LoginAttemptRow): Promise<AppError> {
    this.metrics.loginFailed();
    const remainingMs = await this.lockAfterFailure(attempt.id, attempt.failedLoginAttempts);
    if (remainingMs !== undefined && remainingMs > 0) {
      this.metrics.accountLockedOut();
      await this.audit.record(who, {
        category: 'auth',
        action: 'account_locked',
        success: false,
        metadata: { attempts: attempt.failedLoginAttempts },
      });
      return lockedError(remainingMs);
    }
    await this.audit.record(who, {
      category: 'auth',
      action: 'login_failed',
      success: false,
      metadata: { reason: 'wrong_password', attempts: attempt.failedLoginAttempts },
    });
    return new AppError('INVALID_CREDENTIALS');
  }

  /**
   * Verifies the e-mail by the link token: unknown or expired token → 400
   * INVALID_VERIFICATION_TOKEN. Single use even under concurrency (conditional update on the
   * same token hash). Failures are anonymous and cheap to send, so they are logged at most
   * once per IP address and minute, with the number of failures the entry stands for.
   */
  async verifyEmailToken(actor: Actor, token: string): Promise<void> {
    const hash = sha256(token);
    const user = await this.db.user.findUnique({
      where: { verificationTokenHash: hash },
      select: { id: true, username: true, verificationExpiresAt: true },
    });
    const audit = (success: boolean, failures?: number) =>
      this.audit.record(actingAs(actor, user), {
        category: 'auth',
        action: 'email_verify',
        success,
        metadata: failures === undefined ? { method: 'link' } : { method: 'link', failures },
      });
    if (!user || !user.verificationExpiresAt || user.verificationExpiresAt.getTime() <= this.clock.now().getTime()) {
      const failures = this.verifyFailureLog.take(actor.ip ?? 'unknown', this.clock.now().getTime());
      if (failures !== undefined) await audit(false, failures);
      throw new AppError('INVALID_VERIFICATION_TOKEN');
    }
    const { count } = await this.db.user.updateMany({
      where: { id: user.id, verificationTokenHash: hash },
      data: { emailVerified: true, ...clearedVerification },
    });
    if (count === 0) throw new AppError('INVALID_VERIFICATION_TOKEN');
    await audit(true);
  }

  /**
   * Verifies the e-mail by the 6-digit code. Every attempt is counted first (atomic UPDATE …
   * RETURNING), then compared, so at most MAX_CODE_ATTEMPTS guesses per issued code, also with
   * parallel requests; unknown address, no live code, too many attempts or a wrong code → 400
   * INVALID_VERIFICATION_CODE.
   */
  async verifyEmailCode(actor: Actor, email: string, code: string): Promise<void> {
    const rows = await this.db.$queryRaw<{ id: number; username: string; verificationCodeHash: string }[]>`
      UPDATE "User" SET "verificationAttempts" = "verificationAttempts" + 1
      WHERE "email" = ${email}
        AND "verificationCodeHash" IS NOT NULL
        AND "verificationExpiresAt" > now()
        AND "verificationAttempts" < ${MAX_CODE_ATTEMPTS}
      RETURNING "id", "username", "verificationCodeHash"`;
    const row = rows[0];
    const audit = (success: boolean) =>
      this.audit.record(actingAs(actor, row), {
        category: 'auth',
        action: 'email_verify',
        success,
        metadata: { method: 'code' },
      });
    if (!row || !sameHash(row.verificationCodeHash, sha256(code))) {
      await audit(false);
      throw new AppError('INVALID_VERIFICATION_CODE');
    }
    const { count } = await this.db.user.updateMany({
      where: { id: row.id, verificationCodeHash: row.verificationCodeHash },
      data: { emailVerified: true, ...clearedVerification },
    });
    if (count === 0) throw new AppError('INVALID_VERIFICATION_CODE');
    await audit(true);
  }

  /**
   * Queues a new verification link and code (the old ones stop working when it is sent). Answers the
   * same whether or not the address exists or is already verified (no account enumeration).
   */
  async resendVerification(actor: Actor, email: string): Promise<void> {
    const user = await this.db.user.findUnique({
      where: { email },
      select: { id: true, username: true, email: true, emailVerified: true },
    });
    if (!user || user.emailVerified) {
      await this.audit.record(actingAs(actor, user), {
        category: 'auth',
        action: 'verification_resend',
        success: false,
        metadata: { reason: user ? 'already_verified' : 'unknown_email' },
      });
      return;
    }
    await this.mail.transaction(this.db, async () => ({
      result: undefined,
      mails: [accountMail.verification(user.id, user.email)],
    }));
    await this.audit.record(actingAs(actor, user), { category: 'auth', action: 'verification_resend' });
  }

  /**
   * Queues a password-reset link (valid for an hour from sending, replaces an earlier one).
   * Answers the same whether or not the address exists (no account enumeration).
   */
  async requestPasswordReset(actor: Actor, email: string): Promise<void> {
    const user = await this.db.user.findUnique({ where: { email }, select: { id: true, username: true, email: true } });
    if (!user) {
      await this.audit.record(actingAs(actor, null), {
        category: 'auth',
        action: 'password_reset_request',
        success: false,
        metadata: { reason: 'unknown_email' },
      });
      return;
    }
    await this.mail.transaction(this.db, async () => ({
      result: undefined,
      mails: [accountMail.passwordReset(user.id)],
    }));
    await this.audit.record(actingAs(actor, user), { category: 'auth', action: 'password_reset_request' });
  }

  /**
   * Sets a new password with a reset token: unknown or expired token → 400 INVALID_RESET_TOKEN.
   * Single use (conditional update on the token hash); also clears the lock and the counter,
   * and ends every session: the token version is incremented (earlier tokens get 401) and the
   * user's sockets are disconnected after the commit.
   */
  async resetPassword(actor: Actor, token: string, newPassword: string): Promise<void> {
    const hash = sha256(token);
    const user = await this.db.user.findUnique({
      where: { resetTokenHash: hash },
      select: { id: true, username: true, resetExpiresAt: true },
    });
    const who = actingAs(actor, user);
    if (!user || !user.resetExpiresAt || user.resetExpiresAt.getTime() <= this.clock.now().getTime()) {
      await this.audit.record(who, { category: 'auth', action: 'password_reset', success: false });
      throw new AppError('INVALID_RESET_TOKEN');
    }
    const passwordHash = await this.hasher.hash(newPassword);
    const { count } = await this.db.user.updateMany({
      where: { id: user.id, resetTokenHash: hash, resetExpiresAt: { gt: this.clock.now() } },
      data: {
        passwordHash,
        resetTokenHash: null,
        resetExpiresAt: null,
        failedLoginAttempts: 0,
        lockedUntil: null,
        tokenVersion: { increment: 1 },
      },
    });
    if (count === 0) throw new AppError('INVALID_RESET_TOKEN');
    await this.notifier.disconnectUser(user.id);
    await this.audit.record(who, { category: 'auth', action: 'password_reset' });
  }
}

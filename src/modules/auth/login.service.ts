import type { PrismaClient } from '../../generated/prisma/client.js';
import type { Actor } from '../../lib/actor.js';
import type { TokenAuthenticator } from '../../lib/auth.js';
import type { Clock } from '../../lib/clock.js';
import { AppError } from '../../lib/errors.js';
import type { Metrics } from '../../lib/metrics.js';
import type { PasswordHasher } from '../../lib/password-hasher.js';
import type { ActivityLogService } from '../activity-log/activity-log.service.js';
import type { LoginAttemptRow, Lockout, UserRecords } from '../users/user-records.js';
import { actingAs, isSuspended, lockedError } from './account-lock.js';
import type { LoginInput } from './auth.schemas.js';

export interface LoginDeps {
  db: PrismaClient;
  audit: Pick<ActivityLogService, 'record'>;
  tokens: Pick<TokenAuthenticator, 'sign'>;
  hasher: Pick<PasswordHasher, 'compare' | 'compareWithDummy'>;
  clock: Clock;
  metrics: Pick<Metrics, 'loginFailed' | 'accountLockedOut'>;
  /** failed logins in a row that lock the account, and for how long */
  lockout: Lockout;
  /** the login counters and the lock of `User` (owned by the users feature) */
  users: Pick<UserRecords, 'reserveLoginAttempt' | 'releaseLoginAttempt' | 'recordLogin' | 'lock'>;
}

/**
 * At most LOCKOUT_MAX_ATTEMPTS attempts of an account are compared at once; a
 * further one waits (polling every LOGIN_WAIT_POLL_MS) until one of them ended, at most
 * LOGIN_WAIT_MS (then 503 SERVICE_UNAVAILABLE with Retry-After, a shed). Attempts counted more
 * than LOGIN_STALE_SECONDS ago whose outcome never came (a process died mid-login) no longer
 * hold the others back.
 */
const LOGIN_WAIT_MS = 10_000;
const LOGIN_WAIT_POLL_MS = 50;
const LOGIN_STALE_SECONDS = 30;

/**
 * Login with lockout (POST /auth/login): counts attempts on the `User` row, compares the
 * password, locks the account after LOCKOUT_MAX_ATTEMPTS wrong ones. Every outcome is audited
 * (category "auth").
 */
export class LoginService {
  constructor(private readonly deps: LoginDeps) {}

  /**
   * Checks in order: unknown e-mail → 401 INVALID_CREDENTIALS (after a dummy compare, so
   * timing does not tell); locked account → 423 ACCOUNT_LOCKED with Retry-After; otherwise the
   * attempt is counted BEFORE the password is compared (one conditional UPDATE, so parallel
   * attempts cannot all pass the lock check: at most LOCKOUT_MAX_ATTEMPTS are compared at once,
   * further ones wait for them). Then a wrong password whose count reached the maximum locks the
   * account (423), a wrong one below it answers 401, and a right one clears counter and lock: a
   * right password never locks an account, whatever runs beside it. An attempt that
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
      matches = await this.deps.hasher.compare(password, attempt.passwordHash);
    } catch (err) {
      await this.releaseLoginAttempt(attempt.id).catch(() => undefined);
      throw err;
    }
    if (!matches) throw await this.failedLogin(who, attempt);

    const { tokenVersion, suspendedAt, suspendedUntil, ...user } = await this.deps.users.recordLogin(attempt.id);
    if (isSuspended({ suspendedAt, suspendedUntil }, this.deps.clock.now())) {
      await this.deps.audit.record(who, { category: 'auth', action: 'login_suspended', success: false });
      throw new AppError('ACCOUNT_SUSPENDED', { extra: { until: suspendedUntil?.toISOString() ?? null } });
    }
    await this.deps.audit.record(who, { category: 'auth', action: 'login' });
    return { token: this.deps.tokens.sign({ ...user, tokenVersion }), user };
  }

  /**
   * Counts a login attempt of an unlocked account in ONE atomic UPDATE (row lock: parallel
   * attempts are counted one after another) and answers its number. After an expired lock
   * counting starts again at 1. While LOCKOUT_MAX_ATTEMPTS counted attempts are still open (being
   * compared), this one waits for them (see LOGIN_WAIT_MS). Answers nothing for an unknown e-mail
   * or a locked account. The lock itself is set only by a wrong password (failedLogin).
   */
  private async reserveLoginAttempt(email: string): Promise<LoginAttemptRow | undefined> {
    const { maxAttempts } = this.deps.lockout;
    const waitUntil = Date.now() + LOGIN_WAIT_MS;
    for (;;) {
      const attempt = await this.deps.users.reserveLoginAttempt(email, maxAttempts, LOGIN_STALE_SECONDS);
      if (attempt) return attempt;
      const user = await this.deps.db.user.findUnique({ where: { email }, select: { lockedUntil: true } });
      // unknown, or locked by the attempts it waited for: refusedLogin answers
      if (!user || (user.lockedUntil && user.lockedUntil.getTime() > Date.now())) return undefined;
      if (Date.now() >= waitUntil) throw new AppError('SERVICE_UNAVAILABLE');
      await new Promise((resolve) => setTimeout(resolve, LOGIN_WAIT_POLL_MS));
    }
  }

  /** An attempt that ended without a comparison gives its count back (never below zero). */
  private async releaseLoginAttempt(userId: number): Promise<void> {
    await this.deps.users.releaseLoginAttempt(userId);
  }

  /**
   * A wrong password: the attempt whose number reached the maximum locks the account, unless a
   * right password reset the count meanwhile or the account is locked already. Answers the
   * remaining lock time when this attempt locked it.
   */
  private async lockAfterFailure(userId: number, attemptNumber: number): Promise<number | undefined> {
    if (attemptNumber < this.deps.lockout.maxAttempts) return undefined;
    return this.deps.users.lock(userId, this.deps.lockout);
  }

  /** No attempt could be counted: 401 for an unknown e-mail (after a dummy compare), 423 while locked. */
  private async refusedLogin(actor: Actor, email: string, password: string): Promise<AppError> {
    this.deps.metrics.loginFailed();
    const user = await this.deps.db.user.findUnique({
      where: { email },
      select: { id: true, username: true, lockedUntil: true },
    });
    if (!user) {
      await this.deps.hasher.compareWithDummy(password);
      await this.deps.audit.record(actingAs(actor, null), {
        category: 'auth',
        action: 'login_failed',
        success: false,
        metadata: { reason: 'unknown_email' },
      });
      return new AppError('INVALID_CREDENTIALS');
    }
    await this.deps.audit.record(actingAs(actor, user), { category: 'auth', action: 'login_locked', success: false });
    return lockedError(Math.max(1000, (user.lockedUntil?.getTime() ?? 0) - this.deps.clock.now().getTime()));
  }

  /** A counted attempt with a wrong password: 423 when it locked the account, else 401. */
  private async failedLogin(who: Actor, attempt: LoginAttemptRow): Promise<AppError> {
    this.deps.metrics.loginFailed();
    const remainingMs = await this.lockAfterFailure(attempt.id, attempt.failedLoginAttempts);
    if (remainingMs !== undefined && remainingMs > 0) {
      this.deps.metrics.accountLockedOut();
      await this.deps.audit.record(who, {
        category: 'auth',
        action: 'account_locked',
        success: false,
        metadata: { attempts: attempt.failedLoginAttempts },
      });
      return lockedError(remainingMs);
    }
    await this.deps.audit.record(who, {
      category: 'auth',
      action: 'login_failed',
      success: false,
      metadata: { reason: 'wrong_password', attempts: attempt.failedLoginAttempts },
    });
    return new AppError('INVALID_CREDENTIALS');
  }
}

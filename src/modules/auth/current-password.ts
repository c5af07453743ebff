import type { PrismaClient } from '../../generated/prisma/client.js';
import { userOf, type Actor } from '../../lib/actor.js';
import { AppError } from '../../lib/errors.js';
import type { PasswordHasher } from '../../lib/password-hasher.js';
import type { ActivityLogService } from '../activity-log/activity-log.service.js';
import type { CountedAttempt, Lockout, UserRecords } from '../users/user-records.js';
import { lockedError } from './account-lock.js';

/**
 * The current password asked again by a signed-in route (password change, e-mail change):
 * a wrong one is a failed login attempt (docs/security-hardening.md, "Current-password
 * guessing"), with the login's counter, LOCKOUT_MAX_ATTEMPTS and LOCKOUT_MINUTES.
 */
export interface CurrentPasswordDeps {
  db: PrismaClient;
  hasher: PasswordHasher;
  audit: Pick<ActivityLogService, 'record'>;
  lockout: Lockout;
  /** the failure counter and the lock of `User` (owned by the users feature) */
  users: Pick<UserRecords, 'clearFailedAttempts' | 'recordFailedAttempt'>;
}

export class CurrentPasswordCheck {
  constructor(private readonly deps: CurrentPasswordDeps) {}

  /**
   * Checks in order: 404 USER_NOT_FOUND; a locked account → 423 ACCOUNT_LOCKED whatever the
   * password (the right one included); then the comparison. A right password resets the counter
   * (unless a parallel wrong one locked the account meanwhile: 423). A wrong one is counted in one
   * conditional UPDATE (parallel guesses are counted one after another): the attempt that reaches
   * the maximum locks the account and answers 423, the ones below answer 400 WRONG_PASSWORD.
   * The comparison comes before the count, so a right password never locks the account.
   * Every refusal is audited under `action` (category "auth"). The account is the actor's user
   * (401 AUTH_REQUIRED without one).
   */
  async verify(actor: Actor, { password: given, action }: { password: string; action: string }): Promise<void> {
    const { db, hasher } = this.deps;
    const userId = userOf(actor).id;
    const user = await db.user.findUnique({ where: { id: userId }, select: { passwordHash: true, lockedUntil: true } });
    if (!user) throw new AppError('USER_NOT_FOUND');
    const lockedMs = await this.lockRemainingMs(userId);
    if (lockedMs !== null) throw await this.refused(actor, action, 'locked', lockedMs);
    if (await hasher.compare(given, user.passwordHash)) return this.reset(actor, userId, action);

    const counted = await this.countFailure(userId);
    if (!counted) throw await this.refused(actor, action, 'locked', (await this.lockRemainingMs(userId)) ?? 1000);
    if (counted.remainingMs !== null && counted.remainingMs > 0) {
      await this.deps.audit.record(actor, {
        category: 'auth',
        action: 'account_locked',
        success: false,
        metadata: { attempts: counted.failedLoginAttempts, via: action },
      });
      throw lockedError(counted.remainingMs);
    }
    await this.deps.audit.record(actor, {
      category: 'auth',
      action,
      success: false,
      metadata: { reason: 'wrong_current_password', attempts: counted.failedLoginAttempts },
    });
    throw new AppError('WRONG_PASSWORD');
  }

  /** Milliseconds the account stays locked, or null when it is not locked. */
  private async lockRemainingMs(userId: number): Promise<number | null> {
    const [row] = await this.deps.db.$queryRaw<{ remainingMs: number | null }[]>`
      SELECT CASE WHEN "lockedUntil" > now() THEN (EXTRACT(EPOCH FROM ("lockedUntil" - now())) * 1000)::float8 END AS "remainingMs"
      FROM "User" WHERE "id" = ${userId}`;
    return row?.remainingMs ?? null;
  }

  /** A right password: the counter and an expired lock are cleared; 423 when a parallel guess locked the account meanwhile. */
  private async reset(actor: Actor, userId: number, action: string): Promise<void> {
    const cleared = await this.deps.users.clearFailedAttempts(userId);
    if (!cleared) throw await this.refused(actor, action, 'locked', (await this.lockRemainingMs(userId)) ?? 1000);
  }

  /** Counts a failed attempt of an unlocked account as the login does (src/modules/auth/login.service.ts); nothing when it is locked. */
  private async countFailure(userId: number): Promise<CountedAttempt | undefined> {
    return this.deps.users.recordFailedAttempt(userId, this.deps.lockout);
  }

  private async refused(actor: Actor, action: string, reason: string, remainingMs: number): Promise<AppError> {
    await this.deps.audit.record(actor, { category: 'auth', action, success: false, metadata: { reason } });
    return lockedError(remainingMs);
  }
}

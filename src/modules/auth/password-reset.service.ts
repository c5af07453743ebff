import type { PrismaClient } from '../../generated/prisma/client.js';
import type { Actor } from '../../lib/actor.js';
import type { Clock } from '../../lib/clock.js';
import { AppError } from '../../lib/errors.js';
import { sha256 } from '../../lib/ids.js';
import type { MailQueue } from '../../lib/mail-queue.js';
import type { PasswordHasher } from '../../lib/password-hasher.js';
import type { Notifier } from '../../realtime/notifier.js';
import type { ActivityLogService } from '../activity-log/activity-log.service.js';
import type { UserRecords } from '../users/user-records.js';
import { actingAs } from './account-lock.js';
import { accountMail } from './account-mails.js';
import type { EmailInput, ResetPasswordInput } from './auth.schemas.js';

export const RESET_REQUEST_MESSAGE = 'If an account exists for this email, a password reset link has been sent';

export interface PasswordResetDeps {
  db: PrismaClient;
  audit: Pick<ActivityLogService, 'record'>;
  hasher: Pick<PasswordHasher, 'hash'>;
  notifier: Pick<Notifier, 'disconnectUser'>;
  mail: Pick<MailQueue, 'transaction'>;
  clock: Clock;
  /** the password and reset columns of `User` (owned by the users feature) */
  users: Pick<UserRecords, 'resetPassword'>;
}

/**
 * The forgotten password: the reset link by mail (created when it is sent, account-mails.ts)
 * and the new password set with it (the reset columns of `User`). Every outcome is audited
 * (category "auth").
 */
export class PasswordResetService {
  constructor(private readonly deps: PasswordResetDeps) {}

  /**
   * Queues a password-reset link (valid for an hour from sending, replaces an earlier one).
   * Answers the same whether or not the address exists (no account enumeration).
   */
  async requestPasswordReset(actor: Actor, { email }: EmailInput): Promise<void> {
    const user = await this.deps.db.user.findUnique({
      where: { email },
      select: { id: true, username: true, email: true },
    });
    if (!user) {
      await this.deps.audit.record(actingAs(actor, null), {
        category: 'auth',
        action: 'password_reset_request',
        success: false,
        metadata: { reason: 'unknown_email' },
      });
      return;
    }
    await this.deps.mail.transaction(this.deps.db, async () => ({
      result: undefined,
      mails: [accountMail.passwordReset(user.id)],
    }));
    await this.deps.audit.record(actingAs(actor, user), { category: 'auth', action: 'password_reset_request' });
  }

  /**
   * Sets a new password with a reset token: unknown or expired token → 400 INVALID_RESET_TOKEN.
   * Single use (conditional update on the token hash); also clears the lock and the counter,
   * and ends every session: the token version is incremented (earlier tokens get 401) and the
   * user's sockets are disconnected after the commit.
   */
  async resetPassword(actor: Actor, { token, newPassword }: ResetPasswordInput): Promise<void> {
    const hash = sha256(token);
    const user = await this.deps.db.user.findUnique({
      where: { resetTokenHash: hash },
      select: { id: true, username: true, resetExpiresAt: true },
    });
    const who = actingAs(actor, user);
    if (!user || !user.resetExpiresAt || user.resetExpiresAt.getTime() <= this.deps.clock.now().getTime()) {
      await this.deps.audit.record(who, { category: 'auth', action: 'password_reset', success: false });
      throw new AppError('INVALID_RESET_TOKEN');
    }
    const passwordHash = await this.deps.hasher.hash(newPassword);
    const reset = await this.deps.users.resetPassword({
      userId: user.id,
      tokenHash: hash,
      passwordHash,
      now: this.deps.clock.now(),
    });
    if (!reset) throw new AppError('INVALID_RESET_TOKEN');
    await this.deps.notifier.disconnectUser(user.id);
    await this.deps.audit.record(who, { category: 'auth', action: 'password_reset' });
  }
}

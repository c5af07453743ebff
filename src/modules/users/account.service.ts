import type { Prisma, PrismaClient } from '../../generated/prisma/client.js';
import { userOf, type Actor } from '../../lib/actor.js';
import type { TokenAuthenticator } from '../../lib/auth.js';
import { AppError, validationFailed } from '../../lib/errors.js';
import type { MailQueue } from '../../lib/mail-queue.js';
import type { PasswordHasher } from '../../lib/password-hasher.js';
import type { Notifier } from '../../realtime/notifier.js';
import type { ActivityLogService } from '../activity-log/activity-log.service.js';
import type { AccountMails } from '../auth/account-mails.js';
import type { CurrentPasswordCheck } from '../auth/current-password.js';
import type { ChangePasswordInput, ProfileUpdate } from './users.schemas.js';
import type { UserRecords } from './user-records.js';

export interface AccountDeps {
  db: PrismaClient;
  users: Pick<UserRecords, 'updateProfile' | 'setPassword'>;
  audit: Pick<ActivityLogService, 'record'>;
  tokens: Pick<TokenAuthenticator, 'sign'>;
  hasher: Pick<PasswordHasher, 'hash'>;
  notifier: Pick<Notifier, 'disconnectUser'>;
  mail: Pick<MailQueue, 'transaction'>;
  /** the current password asked again (auth's lockout rules) */
  currentPassword: Pick<CurrentPasswordCheck, 'verify'>;
  /** what an e-mail change needs of the account mails (auth's verification columns and mails) */
  accountMails: Pick<AccountMails, 'emailChange'>;
  /** per account at most `max` e-mail changes in a rolling `windowSeconds`; undefined = no cap (rate limits off) */
  emailChangeLimit?: { max: number; windowSeconds: number };
}

const PROFILE_FIELDS = [
  'firstName',
  'lastName',
  'city',
  'country',
  'instagramUrl',
  'facebookUrl',
  'youtubeUrl',
  'tiktokUrl',
] as const;

/**
 * The signed-in user's own account: the profile (with the e-mail change) and the password. The
 * account is the actor's user (401 AUTH_REQUIRED without one). Writes `User` and `EmailChange`.
 */
export class AccountService {
  constructor(private readonly deps: AccountDeps) {}

  /**
   * Updates the editable profile fields (a whitelist: isAdmin, emailVerified, username … never
   * reach the database); 404 USER_NOT_FOUND. A new e-mail needs the current password (missing →
   * 400 VALIDATION_ERROR with details; wrong → 400 WRONG_PASSWORD, counted as a failed login:
   * 423 ACCOUNT_LOCKED at the maximum and while locked; all before anything is written), then,
   * with the cap on, 429 EMAIL_CHANGE_LIMITED past the per-account cap, then 409 EMAIL_TAKEN
   * (decided by the unique index); it resets emailVerified, queues a verification mail to the new
   * address and a notice to the old one, and answers a fresh JWT in `token`.
   */
  async updateProfile(actor: Actor, update: ProfileUpdate) {
    const userId = userOf(actor).id;
    const data: Record<string, unknown> = {};
    for (const field of PROFILE_FIELDS) {
      const value = update[field];
      if (value === undefined) continue;
      data[field] = value === null || value === '' ? null : value;
    }
    const current = await this.deps.db.user.findUnique({ where: { id: userId }, select: { email: true } });
    if (!current) throw new AppError('USER_NOT_FOUND');

    const emailChanged = typeof update.email === 'string' && update.email !== current.email;
    if (emailChanged) await this.checkCurrentPassword(actor, update.currentPassword, 'email_change');
    // the old address's link and code stop working; the new ones are created when the mail is sent
    const change = emailChanged
      ? this.deps.accountMails.emailChange(actor, { userId, previousEmail: current.email, newEmail: update.email! })
      : undefined;
    if (change) Object.assign(data, change.data);

    let user;
    try {
      // a new address gets a verification mail and the old one is told, both only if the change commits
      user = await this.deps.mail.transaction(this.deps.db, async (tx) => {
        const changed = await this.deps.users.updateProfile(userId, data, tx);
        // counted under the user row's lock (taken by the update), so parallel changes cannot pass the cap together
        if (emailChanged) await this.countEmailChange(tx, userId);
        return { result: changed, mails: change?.mails ?? [] };
      });
    } catch (err) {
      if (err instanceof AppError && err.code === 'EMAIL_CHANGE_LIMITED') {
        await this.deps.audit.record(actor, {
          category: 'auth',
          action: 'email_change',
          success: false,
          metadata: { reason: 'limit' },
        });
      }
      throw err;
    }
    await this.deps.audit.record(actor, {
      category: 'auth',
      action: emailChanged ? 'email_change' : 'profile_update',
      metadata: { fields: Object.keys(data).filter((k) => !k.startsWith('verification') && k !== 'emailVerified') },
    });
    const { tokenVersion, ...updated } = user;
    if (!emailChanged) return updated;
    return { ...updated, token: this.deps.tokens.sign({ ...updated, tokenVersion }) };
  }

  /** 400 VALIDATION_ERROR without a current password, else the lockout rules of CurrentPasswordCheck. */
  private async checkCurrentPassword(actor: Actor, given: string | undefined, action: string): Promise<void> {
    if (!given)
      throw validationFailed([
        { field: 'currentPassword', message: 'Current password is required to change the e-mail' },
      ]);
    await this.deps.currentPassword.verify(actor, { password: given, action });
  }

  /**
   * Records an e-mail change, or 429 EMAIL_CHANGE_LIMITED (+ Retry-After: seconds until the oldest
   * counted change leaves the window) when the account already made the maximum in the window.
   */
  private async countEmailChange(tx: Prisma.TransactionClient, userId: number): Promise<void> {
    const limit = this.deps.emailChangeLimit;
    if (!limit) return;
    const [window] = await tx.$queryRaw<{ n: number; retryMs: number | null }[]>`
      SELECT count(*)::int AS n,
        (EXTRACT(EPOCH FROM (min("createdAt") + make_interval(secs => ${limit.windowSeconds}::int) - now())) * 1000)::float8 AS "retryMs"
      FROM "EmailChange"
      WHERE "userId" = ${userId} AND "createdAt" > now() - make_interval(secs => ${limit.windowSeconds}::int)`;
    if (window.n >= limit.max) {
      const retryAfter = String(Math.max(1, Math.ceil((window.retryMs ?? 1000) / 1000)));
      throw new AppError('EMAIL_CHANGE_LIMITED', { headers: { 'Retry-After': retryAfter } });
    }
    await tx.emailChange.create({ data: { userId } });
  }

  /** Whether `email` (normalized) differs from the account's address: an e-mail change (the router's rate tiers). */
  async isEmailChange(actor: Actor, { email }: { email: string }): Promise<boolean> {
    const userId = userOf(actor).id;
    const user = await this.deps.db.user.findUnique({ where: { id: userId }, select: { email: true } });
    return user !== null && user.email !== email;
  }

  /**
   * Changes the password: 404 USER_NOT_FOUND, then the current password as a login attempt
   * (400 WRONG_PASSWORD, 423 ACCOUNT_LOCKED at the maximum and while locked). Ends every earlier session: the token version is incremented (older
   * tokens get 401) and the user's sockets are disconnected after the commit. A pending
   * password-reset link is void afterwards. Answers a fresh token, so the caller stays signed in.
   */
  async changePassword(
    actor: Actor,
    { currentPassword, newPassword }: ChangePasswordInput,
  ): Promise<{ token: string }> {
    const userId = userOf(actor).id;
    await this.deps.currentPassword.verify(actor, { password: currentPassword, action: 'password_change' });
    const passwordHash = await this.deps.hasher.hash(newPassword);
    const updated = await this.deps.users.setPassword(userId, passwordHash);
    await this.deps.notifier.disconnectUser(userId, updated.tokenVersion);
    await this.deps.audit.record(actor, { category: 'auth', action: 'password_change' });
    return { token: this.deps.tokens.sign(updated) };
  }
}

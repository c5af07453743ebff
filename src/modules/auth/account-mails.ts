import type { PrismaClient } from '../../generated/prisma/client.js';
import type { Actor } from '../../lib/actor.js';
import type { Clock } from '../../lib/clock.js';
import type { MailReference } from '../../lib/mail-queue.js';
import { emailChangedMail, passwordResetMail, verificationMail, type Mail } from '../../lib/mailer.js';
import { clearedVerification, newResetToken, newVerification } from './auth.tokens.js';
import type { UserRecords } from '../users/user-records.js';

/**
 * The account mails, rendered when the mail queue's worker sends them (docs/security-hardening.md,
 * "Secrets of mails at rest"). A queued job holds only a reference, `{ kind, userId[, newEmail]
 * [, previousEmail] }`: the verification link token and code, and the reset token, are created
 * here, at send time, and only their hashes are stored (on the user row, as before). A retried
 * send issues new secrets, so the link and code of the mail that was delivered are the ones that
 * work. A reference whose mail no longer applies (the account is gone, already verified, or its
 * address changed since) renders nothing and the job is dropped.
 */
export interface AccountMailsSettings {
  /** base of the links in verification and reset mails */
  frontendUrl: string;
}

/** The references the account services queue. */
export const accountMail = {
  /** a new verification link and code, to `newEmail` while it is still the account's unverified address */
  verification: (userId: number, newEmail: string): MailReference => ({ kind: 'verification', userId, newEmail }),
  /** a new password-reset link to the account's address */
  passwordReset: (userId: number): MailReference => ({ kind: 'password_reset', userId }),
  /** the notice to the previous address after an e-mail change (no secret in it) */
  emailChanged: (userId: number, previousEmail: string, newEmail: string): MailReference => ({
    kind: 'email_changed',
    userId,
    previousEmail,
    newEmail,
  }),
};

export interface AccountMailsDeps {
  db: PrismaClient;
  clock: Clock;
  settings: AccountMailsSettings;
  /** the stored link, code and reset hashes of `User` (owned by the users feature) */
  users: Pick<UserRecords, 'storeVerification' | 'storeResetToken'>;
}

export class AccountMails {
  constructor(private readonly deps: AccountMailsDeps) {}

  /**
   * What an e-mail change (src/modules/users/account.service.ts) writes and queues: the new
   * address, unverified, without the old address's link and code (they stop working; the new ones
   * are created when the mail is sent), and the mails to queue in the change's transaction: the
   * verification to the new address and the notice to the previous one.
   */
  emailChange(_actor: Actor, input: { userId: number; previousEmail: string; newEmail: string }) {
    const { userId, previousEmail, newEmail } = input;
    return {
      data: { email: newEmail, emailVerified: false, ...clearedVerification },
      mails: [accountMail.verification(userId, newEmail), accountMail.emailChanged(userId, previousEmail, newEmail)],
    };
  }

  /** The mail of a reference with fresh secrets (their hashes stored), or undefined when it no longer applies. */
  async render(ref: MailReference): Promise<Mail | undefined> {
    switch (ref.kind) {
      case 'verification':
        return this.verification(ref);
      case 'password_reset':
        return this.passwordReset(ref);
      case 'email_changed':
        return this.emailChanged(ref);
      default:
        return undefined;
    }
  }

  /** Replaces the stored link and code hashes (the earlier ones stop working) while the address is the one the mail is for and unverified. */
  private async verification(ref: MailReference): Promise<Mail | undefined> {
    const { users, clock, settings } = this.deps;
    const verification = newVerification(clock.now());
    const user = await users.storeVerification(ref.userId, ref.newEmail, verification.stored);
    if (!user) return undefined;
    return verificationMail(settings.frontendUrl, user.email, user.username, verification.token, verification.code);
  }

  /** Replaces the stored reset-token hash (valid an hour from now). */
  private async passwordReset(ref: MailReference): Promise<Mail | undefined> {
    const { users, clock, settings } = this.deps;
    const reset = newResetToken(clock.now());
    const user = await users.storeResetToken(ref.userId, reset.stored);
    if (!user) return undefined;
    return passwordResetMail(settings.frontendUrl, user.email, user.username, reset.token);
  }

  private async emailChanged(ref: MailReference): Promise<Mail | undefined> {
    if (!ref.previousEmail || !ref.newEmail) return undefined;
    const user = await this.deps.db.user.findUnique({ where: { id: ref.userId }, select: { username: true } });
    if (!user) return undefined;
    return emailChangedMail(ref.previousEmail, user.username, ref.newEmail);
  }
}

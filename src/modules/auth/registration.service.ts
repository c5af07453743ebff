import type { PrismaClient } from '../../generated/prisma/client.js';
import type { Actor } from '../../lib/actor.js';
import type { TokenAuthenticator } from '../../lib/auth.js';
import type { MailQueue } from '../../lib/mail-queue.js';
import type { PasswordHasher } from '../../lib/password-hasher.js';
import { avatarUrlFor } from '../../lib/user-summary.js';
import type { ActivityLogService } from '../activity-log/activity-log.service.js';
import { actingAs } from './account-lock.js';
import { accountMail } from './account-mails.js';
import type { RegisterInput } from './auth.schemas.js';
import type { CaptchaVerifier } from './captcha.js';
import type { UserRecords } from '../users/user-records.js';

export interface RegistrationDeps {
  db: PrismaClient;
  /** the new `User` row (owned by the users feature) */
  users: Pick<UserRecords, 'create'>;
  audit: Pick<ActivityLogService, 'record'>;
  tokens: Pick<TokenAuthenticator, 'sign'>;
  hasher: Pick<PasswordHasher, 'hash'>;
  mail: Pick<MailQueue, 'transaction'>;
  /** CAPTCHA on registration (off when not configured) */
  captcha?: Pick<CaptchaVerifier, 'verify'>;
  /** PUBLIC_URL: base of the avatar URL stored at registration */
  publicUrl: string;
}

/**
 * Registration (POST /auth/register): creates the `User` row of a new account with its
 * verification mail. Audited as auth/register.
 */
export class RegistrationService {
  constructor(private readonly deps: RegistrationDeps) {}

  /**
   * Creates the account from whitelisted fields only (isAdmin / emailVerified in the body never
   * reach the database), mails a verification link and code, answers the user object and a JWT.
   * The unique constraints decide, also for two concurrent registrations: 409 EMAIL_TAKEN, then
   * 409 USERNAME_TAKEN. The account and its verification mail commit together. With the CAPTCHA
   * on, `captchaToken` is verified first (after body validation, before anything is stored):
   * 400 CAPTCHA_FAILED, 503 CAPTCHA_UNAVAILABLE.
   */
  async register(actor: Actor, input: RegisterInput) {
    await this.deps.captcha?.verify(actor, { token: input.captchaToken });
    const passwordHash = await this.deps.hasher.hash(input.password);
    const user = await this.deps.mail.transaction(this.deps.db, async (tx) => {
      const created = await this.deps.users.create(
        {
          username: input.username,
          email: input.email,
          passwordHash,
          avatar: avatarUrlFor(this.deps.publicUrl, input.username),
          firstName: input.firstName || null,
          lastName: input.lastName || null,
          registryId: input.registryId || null,
        },
        tx,
      );
      // the link and code are created when the mail is sent (src/modules/auth/account-mails.ts)
      return { result: created, mails: [accountMail.verification(created.id, created.email)] };
    });
    await this.deps.audit.record(actingAs(actor, user), { category: 'auth', action: 'register' });
    return { token: this.deps.tokens.sign(user), user };
  }
}

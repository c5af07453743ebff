import type { PrismaClient } from '../../generated/prisma/client.js';
import type { Actor } from '../../lib/actor.js';
import { AppError } from '../../lib/errors.js';
import type { PasswordHasher } from '../../lib/password-hasher.js';
import { isRecordNotFound, isUniqueViolation } from '../../lib/prisma-errors.js';
import { avatarUrlFor, userObjectSelect } from '../../lib/user-summary.js';
import type { Notifier } from '../../realtime/notifier.js';
import { rooms } from '../../realtime/types.js';
import type { ActivityLogService } from '../activity-log/activity-log.service.js';

/** An account the operator creates (validated like a registration first). */
export interface OperatorAccountInput {
  email: string;
  username: string;
  password: string;
  isAdmin?: boolean;
  firstName?: string | null;
  lastName?: string | null;
  city?: string | null;
  country?: string | null;
}

export interface OperatorAccountsDeps {
  db: PrismaClient;
  audit: Pick<ActivityLogService, 'record'>;
  hasher: Pick<PasswordHasher, 'hash'>;
  notifier: Pick<Notifier, 'removeUserFromRoom'>;
  /** PUBLIC_URL: avatar URLs of accounts made by the operator start with it */
  publicUrl: string;
}

/** The operator's accounts (CLI `user:create`, `user:promote`, `user:demote`, `demo:seed`): writes `User`. */
export class OperatorAccountsService {
  constructor(private readonly deps: OperatorAccountsDeps) {}

  /**
   * An account made by the operator (CLI `user:create`, `demo:seed`), not through registration:
   * the e-mail counts as verified (the operator vouches for it) and no mail is sent. The input
   * is validated like a registration beforehand. Unique constraints decide: 409 EMAIL_TAKEN,
   * then USERNAME_TAKEN. Audited as admin/user_create.
   */
  async createAccount(actor: Actor, input: OperatorAccountInput) {
    const passwordHash = await this.deps.hasher.hash(input.password);
    let user;
    try {
      user = await this.deps.db.user.create({
        data: {
          username: input.username,
          email: input.email,
          passwordHash,
          avatar: avatarUrlFor(this.deps.publicUrl, input.username),
          firstName: input.firstName || null,
          lastName: input.lastName || null,
          city: input.city || null,
          country: input.country || null,
          emailVerified: true,
          isAdmin: input.isAdmin ?? false,
        },
        select: userObjectSelect,
      });
    } catch (err) {
      if (isUniqueViolation(err, 'email')) throw new AppError('EMAIL_TAKEN');
      if (isUniqueViolation(err, 'username')) throw new AppError('USERNAME_TAKEN');
      throw err;
    }
    await this.deps.audit.record(actor, {
      category: 'admin',
      action: 'user_create',
      resource: `user:${user.id}`,
      metadata: { isAdmin: user.isAdmin },
    });
    return user;
  }

  /**
   * Makes the user of an e-mail address (trimmed, lower-cased) an admin; 404 USER_NOT_FOUND
   * naming the address when there is none. Used by the operator CLI (`user:promote`).
   */
  promoteToAdmin(_actor: Actor, { email }: { email: string }) {
    return this.setAdmin(email, true);
  }

  /**
   * Takes admin rights from the user of an e-mail address (CLI `user:demote`); 404 as above.
   * Their sockets leave the admin activity-log room at once (where this process has them; the
   * stream checks the role per entry anyway).
   */
  async demoteFromAdmin(_actor: Actor, { email }: { email: string }) {
    const user = await this.setAdmin(email, false);
    this.deps.notifier.removeUserFromRoom(user.id, rooms.adminActivityLogs);
    return user;
  }

  private async setAdmin(email: string, isAdmin: boolean) {
    try {
      return await this.deps.db.user.update({
        where: { email: email.trim().toLowerCase() },
        data: { isAdmin },
        select: userObjectSelect,
      });
    } catch (err) {
      if (isRecordNotFound(err)) throw new AppError('USER_NOT_FOUND', { message: `No user with e-mail ${email}` });
      throw err;
    }
  }
}

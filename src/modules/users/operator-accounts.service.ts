import type { Actor } from '../../lib/actor.js';
import type { PasswordHasher } from '../../lib/password-hasher.js';
import { avatarUrlFor } from '../../lib/user-summary.js';
import type { Notifier } from '../../realtime/notifier.js';
import { rooms } from '../../realtime/types.js';
import type { ActivityLogService } from '../activity-log/activity-log.service.js';
import type { UserRecords } from './user-records.js';

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
  users: Pick<UserRecords, 'create' | 'setAdmin'>;
  audit: Pick<ActivityLogService, 'record'>;
  hasher: Pick<PasswordHasher, 'hash'>;
  notifier: Pick<Notifier, 'removeUserFromRoom'>;
  /** PUBLIC_URL: avatar URLs of accounts made by the operator start with it */
  publicUrl: string;
}

/** The operator's accounts (CLI `user:create`, `user:promote`, `user:demote`, `demo:seed`): writes `User` through UserRecords. */
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
    const user = await this.deps.users.create({
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
    });
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

  private setAdmin(email: string, isAdmin: boolean) {
    return this.deps.users.setAdmin(email, isAdmin);
  }
}

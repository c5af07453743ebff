import { Prisma, type PrismaClient } from '../../generated/prisma/client.js';
import { userOf, systemActor, type Actor } from '../../lib/actor.js';
import type { Clock } from '../../lib/clock.js';
import { AppError, validationFailed } from '../../lib/errors.js';
import type { MailQueue } from '../../lib/mail-queue.js';
import { DELETED_USER_SUMMARY } from '../../lib/user-summary.js';
import type { Notifier } from '../../realtime/notifier.js';
import type { ActivityLogService } from '../activity-log/activity-log.service.js';
import type { CurrentPasswordCheck } from '../auth/current-password.js';
import type { ChatService } from '../chat/chat.service.js';
import type { UserRecords } from '../users/user-records.js';
import type { EventsService } from '../events/events.service.js';
import type { MatchesService, RemovedMatch } from '../matches/matches.service.js';
import type { DeleteAccountInput } from './privacy.schemas.js';
import type { SuggestionsService } from '../matching/suggestions.service.js';
import type { MatchRatingsService } from '../matches/match-ratings.service.js';

/**
 * Deleting an account (docs/privacy.md, OpenAPI DELETE /users/me and DELETE /admin/users/{username}).
 *
 * Everything happens in ONE transaction, each feature doing its own part through its service
 * (events: participations and counters; matches: matches and ratings; matching: suggestions the
 * user records; chat: messages; activity log: entries; mail queue: queued mails), then the
 * account row goes (blocks by cascade; matching runs, suspensions and reports keep a null
 * reference). A failure anywhere rolls all of it back: the account stays whole.
 *
 * After the commit: the user's sockets are disconnected (tokens are refused by the database
 * check of every request and handshake), partners get `match_cancelled` from the placeholder,
 * and the deletion is logged.
 */

type Tx = Prisma.TransactionClient;

/** A deletion touches many rows of a user with a long history, and may wait for the admin rows' locks. */
const TX_OPTIONS = { maxWait: 10_000, timeout: 30_000 } as const;

export interface AccountDeletionDeps {
  prisma: PrismaClient;
  currentPassword: Pick<CurrentPasswordCheck, 'verify'>;
  audit: ActivityLogService;
  notifier: Notifier;
  mailQueue: MailQueue;
  events: Pick<EventsService, 'removeParticipationsOf'>;
  matches: Pick<MatchesService, 'removeMatchesOf' | 'notifyRemovedMatches'>;
  ratings: Pick<MatchRatingsService, 'anonymiseRatingsOf'>;
  suggestions: Pick<SuggestionsService, 'releaseDeletedRecorder'>;
  chat: Pick<ChatService, 'anonymiseMessagesOf'>;
  /** the `User` row itself (owned by the users feature) */
  users: Pick<UserRecords, 'delete'>;
  clock: Clock;
  /** LOCKOUT_MAX_ATTEMPTS / LOCKOUT_MINUTES: a wrong current password counts as a failed login */
}

interface DeletedAccount {
  id: number;
  username: string;
  removedMatches: RemovedMatch[];
}

export class AccountDeletionService {
  constructor(private readonly deps: AccountDeletionDeps) {}

  /**
   * DELETE /users/me. Checks, in order: current password given (400 VALIDATION_ERROR with a
   * detail for currentPassword) → the account is not locked (423 ACCOUNT_LOCKED, whatever the
   * password) → the password matches (a wrong one is a failed login attempt: 400 WRONG_PASSWORD,
   * or 423 for the attempt that reaches LOCKOUT_MAX_ATTEMPTS; audited as auth/account_delete,
   * success false) → not the last admin (409 LAST_ADMIN, inside the transaction). Then the
   * deletion; logged afterwards as auth/account_delete with the placeholder as actor and no address.
   * The account is the actor's user (401 AUTH_REQUIRED without one).
   */
  async deleteOwnAccount(actor: Actor, { currentPassword }: DeleteAccountInput): Promise<void> {
    const userId = userOf(actor).id;
    if (typeof currentPassword !== 'string' || currentPassword === '') {
      throw validationFailed([
        { field: 'currentPassword', message: 'Current password is required to delete the account' },
      ]);
    }
    await this.checkCurrentPassword(actor, currentPassword);
    const deleted = await this.deleteAccount(actor, { id: userId });
    await this.afterCommit(actor, deleted);
    await this.deps.audit.record(asPlaceholder(actor), {
      category: 'auth',
      action: 'account_delete',
      resource: `user:${deleted.id}`,
    });
  }

  /**
   * DELETE /admin/users/:username (the username matched regardless of case). Checks: the user
   * exists (404 USER_NOT_FOUND) → not the last admin (409 LAST_ADMIN). Same effects as a
   * self-deletion; logged as admin/user_delete with the admin as actor.
   */
  async deleteUserAsAdmin(actor: Actor, { username }: { username: string }): Promise<void> {
    const deleted = await this.deleteAccount(actor, { username });
    await this.afterCommit(actor, deleted);
    // an admin who deleted their own account is logged as the placeholder, like a self-deletion
    await this.deps.audit.record(actor.userId === deleted.id ? asPlaceholder(actor) : actor, {
      category: 'admin',
      action: 'user_delete',
      resource: `user:${deleted.id}`,
      metadata: { userId: deleted.id, username: deleted.username },
    });
  }

  /**
   * The transaction: lock the account (an admin's after every admin row, in id order, so that
   * two deletions never wait for each other in a circle), then each feature's part, then the row.
   */
  private async deleteAccount(actor: Actor, by: UserKey): Promise<DeletedAccount> {
    const { prisma, events, matches, ratings, suggestions, chat, audit, mailQueue, users } = this.deps;
    const system = systemActor('account-deletion');
    return prisma.$transaction(async (tx) => {
      const target = await findUser(tx, by, false);
      if (!target) throw new AppError('USER_NOT_FOUND');
      if (target.isAdmin) await assertAnotherAdmin(tx, target.id);
      const user = await findUser(tx, { id: target.id }, true);
      if (!user) throw new AppError('USER_NOT_FOUND');
      // promoted between the two reads
      if (user.isAdmin && !target.isAdmin) await assertAnotherAdmin(tx, user.id);

      const removedMatches = await matches.removeMatchesOf(actor, { tx, userId: user.id });
      await ratings.anonymiseRatingsOf(actor, { tx, userId: user.id });
      await suggestions.releaseDeletedRecorder(actor, { tx, recorderId: user.id });
      await events.removeParticipationsOf(tx, user.id);
      await chat.anonymiseMessagesOf(actor, { tx, userId: user.id });
      await audit.anonymiseUser(system, { userId: user.id }, tx);
      await mailQueue.dropQueuedFor(tx, user.id);
      await users.delete(user.id, tx);
      return { id: user.id, username: user.username, removedMatches };
    }, TX_OPTIONS);
  }

  /** Side channels after the commit: end the sessions' sockets and tell the partners. */
  private async afterCommit(actor: Actor, deleted: DeletedAccount): Promise<void> {
    await this.deps.notifier.disconnectUser(deleted.id);
    this.deps.matches.notifyRemovedMatches(actor, { removed: deleted.removedMatches, deletedUserId: deleted.id });
  }

  /**
   * "Current-password guessing": the one rule of every route that asks for the current password
   * (CurrentPasswordCheck): 423 while locked, a wrong one counted as a failed login (400
   * WRONG_PASSWORD, 423 for the attempt that reaches the maximum), a right one clears the counter.
   */
  private async checkCurrentPassword(actor: Actor, given: string): Promise<void> {
    await this.deps.currentPassword.verify(actor, { password: given, action: 'account_delete' });
  }
}

interface LockedUser {
  id: number;
  username: string;
  email: string;
  isAdmin: boolean;
}

/** The actor of an entry written after the actor's own account was deleted: no id, no address. */
const asPlaceholder = (actor: Actor): Actor => ({
  user: null,
  userId: null,
  username: DELETED_USER_SUMMARY.username,
  ip: null,
  method: actor.method,
  path: actor.path,
});

type UserKey = { id: number } | { username: string };

/**
 * The account row; with `lock` FOR UPDATE: from then until the commit no other transaction can
 * add a row that refers to it (a message, a rating, a check-in wait for the lock and then fail),
 * so nothing escapes the deletion. The username is matched regardless of case.
 */
async function findUser(tx: Tx, by: UserKey, lock: boolean): Promise<LockedUser | undefined> {
  const forUpdate = Prisma.raw(lock ? 'FOR UPDATE' : '');
  const where = 'id' in by ? Prisma.sql`id = ${by.id}` : Prisma.sql`lower(username) = lower(${by.username})`;
  const rows = await tx.$queryRaw<
    LockedUser[]
  >`SELECT id, username, email, "isAdmin" FROM "User" WHERE ${where} ${forUpdate}`;
  return rows[0];
}

/**
 * 409 LAST_ADMIN unless another admin remains. Every admin row is locked (in id order, so two
 * deletions cannot deadlock): of two admins deleting each other at once, the second sees the
 * first one gone and is refused.
 */
async function assertAnotherAdmin(tx: Tx, userId: number): Promise<void> {
  const admins = await tx.$queryRaw<{ id: number }[]>`SELECT id FROM "User" WHERE "isAdmin" ORDER BY id FOR UPDATE`;
  if (!admins.some((a) => a.id !== userId)) throw new AppError('LAST_ADMIN');
}

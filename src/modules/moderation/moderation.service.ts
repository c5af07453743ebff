import type { PrismaClient } from '../../generated/prisma/client.js';
import { userOf, type Actor } from '../../lib/actor.js';
import type { Clock } from '../../lib/clock.js';
import { AppError, validationFailed } from '../../lib/errors.js';
import type { Notifier } from '../../realtime/notifier.js';
import { rooms } from '../../realtime/types.js';
import type { ActivityLogService } from '../activity-log/activity-log.service.js';
import type { ChatService } from '../chat/chat.service.js';
import type { UserRecords } from '../users/user-records.js';
import { existingId, type IdParam, type SuspendInput, type UsernameParam } from './moderation.schemas.js';
import { refOrDeleted, summaryOrDeleted, userRefSelect, type SummaryRow } from './moderation.views.js';

export interface ModerationDeps {
  db: PrismaClient;
  audit: ActivityLogService;
  notifier: Notifier;
  clock: Clock;
  /** removal of chat messages (the chat feature owns `Message`) */
  chat: Pick<ChatService, 'removeMessage'>;
  /** the suspension columns of `User` (owned by the users feature) */
  users: Pick<UserRecords, 'suspend' | 'unsuspend'>;
}

interface TargetUser extends SummaryRow {
  isAdmin: boolean;
}

/**
 * Admin moderation of accounts and messages: suspension (the User suspension columns, written
 * through UserRecords: users owns `User`) and removal of chat messages (through ChatService.removeMessage: chat owns `Message`). Login refuses a suspended account
 * (login.service.ts); matching leaves suspended users out (matching module).
 */
export class ModerationService {
  constructor(private readonly deps: ModerationDeps) {}

  /**
   * POST /admin/users/:username/suspend. Checks after the router's (non-admin 403, body 400):
   * `until` in the future 400 VALIDATION_ERROR → unknown username (regardless of case) 404 →
   * oneself 400 SUSPEND_SELF → another admin 403 ADMIN_NOT_SUSPENDABLE. A suspended user's
   * reason and end are replaced (suspendedAt kept while the suspension runs). The token version
   * is incremented in the same conditional UPDATE (never of an admin), so every token issued
   * before is refused from now on, also after the suspension ends; the user's sockets are
   * disconnected after the commit. Audited as admin/user_suspend.
   */
  async suspend(actor: Actor, { username, ...input }: SuspendInput) {
    const adminId = userOf(actor).id;
    const now = this.deps.clock.now();
    const until = input.until ?? null;
    if (until && until.getTime() <= now.getTime())
      throw validationFailed([{ field: 'until', message: 'until must be in the future' }]);
    const target = await this.findUser(username);
    if (target.id === adminId) throw new AppError('SUSPEND_SELF');
    if (target.isAdmin) throw new AppError('ADMIN_NOT_SUSPENDABLE');
    const suspended = await this.deps.users.suspend({
      userId: target.id,
      by: adminId,
      reason: input.reason,
      until,
      now,
    });
    // promoted to admin meanwhile
    if (!suspended) throw new AppError('ADMIN_NOT_SUSPENDABLE');
    await this.deps.notifier.disconnectUser(target.id);
    await this.deps.audit.record(actor, {
      category: 'admin',
      action: 'user_suspend',
      resource: `user:${target.username}`,
      metadata: { reason: input.reason, until: until?.toISOString() ?? null },
    });
    const admin = await this.deps.db.user.findUnique({ where: { id: adminId }, select: userRefSelect });
    return {
      user: summaryOrDeleted(target),
      suspended: true as const,
      reason: input.reason,
      until,
      suspendedAt: suspended.suspendedAt,
      suspendedBy: refOrDeleted(admin),
    };
  }

  /**
   * DELETE /admin/users/:username/suspend: lifts a suspension (also answers when there is none);
   * unknown username 404. Login works again at once; tokens of before the suspension stay
   * refused. Audited as admin/user_unsuspend.
   */
  async unsuspend(actor: Actor, { username }: UsernameParam) {
    const target = await this.findUser(username);
    await this.deps.users.unsuspend(target.id);
    await this.deps.audit.record(actor, {
      category: 'admin',
      action: 'user_unsuspend',
      resource: `user:${target.username}`,
    });
    return { user: summaryOrDeleted(target), suspended: false as const };
  }

  /**
   * DELETE /admin/messages/:id: removes an event or private message (deletedAt set by a
   * conditional update, so it happens once); unknown, malformed or already deleted id 404
   * MESSAGE_NOT_FOUND. It leaves every history; its room (`event_<id>` or `match_<id>`) gets
   * `message_deleted` `{ messageId }` after the commit. Audited as admin/message_delete.
   */
  async deleteMessage(actor: Actor, { id: rawId }: IdParam): Promise<void> {
    const id = existingId(rawId);
    if (id === undefined) throw new AppError('MESSAGE_NOT_FOUND');
    const message = await this.deps.chat.removeMessage(actor, { id, at: this.deps.clock.now() });
    if (!message) throw new AppError('MESSAGE_NOT_FOUND');
    const { eventId, matchId } = message;
    const room = eventId !== null ? rooms.event(eventId) : matchId !== null ? rooms.match(matchId) : undefined;
    if (room) this.deps.notifier.toRoom(room, 'message_deleted', { messageId: id });
    await this.deps.audit.record(actor, {
      category: 'admin',
      action: 'message_delete',
      resource: `message:${id}`,
      metadata: { roomId: message.roomId, authorId: message.userId },
    });
  }

  private async findUser(username: string): Promise<TargetUser> {
    const rows = await this.deps.db.$queryRaw<TargetUser[]>`
      SELECT id, username, avatar, "firstName", "lastName", "isAdmin" FROM "User" WHERE lower(username) = lower(${username})`;
    if (!rows[0]) throw new AppError('USER_NOT_FOUND');
    return rows[0];
  }
}

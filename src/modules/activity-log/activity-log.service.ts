import type { Prisma, PrismaClient } from '../../generated/prisma/client.js';
import type { Actor } from '../../lib/actor.js';
import type { Clock } from '../../lib/clock.js';
import { AppError } from '../../lib/errors.js';
import { pagination } from '../../lib/http.js';
import { equalsIgnoringCase } from '../../lib/prisma-filters.js';
import type { Logger } from '../../lib/logger.js';
import { DELETED_USER_SUMMARY } from '../../lib/user-summary.js';
import type { Notifier } from '../../realtime/notifier.js';
import { rooms, type ActivityLogEntryPayload } from '../../realtime/types.js';

export const ACTIVITY_PAGE_SIZE = 50;
export const ACTIVITY_CATEGORIES = ['auth', 'event', 'match', 'admin', 'chat'] as const;
export type ActivityCategory = (typeof ACTIVITY_CATEGORIES)[number];

/** What happened, recorded with the actor who did it. */
export interface ActivityRecord {
  category: ActivityCategory;
  /** e.g. "login", "login_failed", "checkin", "match_create" */
  action: string;
  success?: boolean;
  /** e.g. "event:<slug>", "match:<slug>" */
  resource?: string | null;
  metadata?: Prisma.InputJsonValue;
}

export type ActivityLogEntry = ActivityLogEntryPayload;

export interface ActivityLogFilter {
  page: number;
  category?: string;
  action?: string;
  username?: string;
  success?: boolean;
  from?: Date;
  to?: Date;
}

const truncate = (value: string | undefined | null, max: number) =>
  value == null ? null : value.length > max ? value.slice(0, max) : value;

export interface ActivityLogDeps {
  db: PrismaClient;
  notifier: Notifier;
  logger: Logger;
  clock: Clock;
}

/**
 * The admin activity log: services record outcomes; admins read, filter and watch it live.
 * Owns the table `ActivityLog` (only this service writes it).
 */
export class ActivityLogService {
  private readonly db: PrismaClient;

  constructor(private readonly deps: ActivityLogDeps) {
    this.db = deps.db;
  }

  /**
   * Records an activity and streams it to admins watching `admin_activity_logs`: only sockets
   * of users who are admins now receive it (the role is read from the database per entry, so
   * a user who lost admin rights stops receiving entries and leaves the room).
   * Never throws and never fails the action that triggered it: errors are logged. The stream is
   * sent after the entry is written, without waiting for it.
   */
  async record(actor: Actor, activity: ActivityRecord): Promise<ActivityLogEntry | undefined> {
    try {
      const entry = await this.db.activityLog.create({
        data: {
          category: activity.category,
          action: truncate(activity.action, 100) as string,
          success: activity.success ?? true,
          userId: actor.userId,
          username: truncate(actor.username, 50),
          ip: truncate(actor.ip, 64),
          method: truncate(actor.method, 10),
          path: truncate(actor.path, 500),
          resource: truncate(activity.resource, 200),
          metadata: activity.metadata,
        },
      });
      // not awaited: the action's answer never waits on the admin stream (Redis trouble, docs/reliability.md);
      // toRoomMembers logs its own failures
      void this.deps.notifier.toRoomMembers(
        rooms.adminActivityLogs,
        (ids) => this.currentAdmins(ids),
        'activity_log_entry',
        entry,
      );
      return entry;
    } catch (err) {
      this.deps.logger.warn({ err, category: activity.category, action: activity.action }, 'activity log write failed');
      return undefined;
    }
  }

  /**
   * The data export (src/modules/privacy): the user's own entries, newest first, without
   * `metadata` (it may name other users).
   */
  entriesOfUser(_actor: Actor, { userId }: { userId: number }) {
    return this.db.activityLog.findMany({
      where: { userId },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      select: {
        id: true,
        createdAt: true,
        category: true,
        action: true,
        success: true,
        ip: true,
        method: true,
        path: true,
        resource: true,
      },
    });
  }

  /**
   * Account deletion (src/modules/privacy), inside the caller's transaction: the user's entries
   * stay (admins keep the history) without who and from where: userId null, username
   * "deleted-user", ip null.
   */
  async anonymiseUser(_actor: Actor, { userId }: { userId: number }, tx: Prisma.TransactionClient): Promise<number> {
    const { count } = await tx.activityLog.updateMany({
      where: { userId },
      data: { userId: null, username: DELETED_USER_SUMMARY.username, ip: null },
    });
    return count;
  }

  /**
   * The IP retention (src/modules/privacy/ip-retention.service.ts): entries created before
   * `before` lose their `ip` (the entry stays); answers how many. Idempotent.
   */
  async clearIpsBefore(_actor: Actor, { before }: { before: Date }): Promise<number> {
    const { count } = await this.db.activityLog.updateMany({
      where: { createdAt: { lt: before }, ip: { not: null } },
      data: { ip: null },
    });
    return count;
  }

  private async currentAdmins(userIds: number[]): Promise<Set<number>> {
    const admins = await this.db.user.findMany({ where: { id: { in: userIds }, isAdmin: true }, select: { id: true } });
    return new Set(admins.map((a) => a.id));
  }

  /**
   * Admins watching the live stream (`join_admin_activity_logs`): 403 ADMIN_REQUIRED unless the
   * actor's account is an admin now (read from the database, like each streamed entry); answers
   * the room to join.
   */
  async watch(actor: Actor): Promise<string> {
    const user =
      actor.userId === null
        ? null
        : await this.db.user.findUnique({ where: { id: actor.userId }, select: { isAdmin: true } });
    if (!user?.isAdmin) throw new AppError('ADMIN_REQUIRED');
    return rooms.adminActivityLogs;
  }

  /**
   * A page of entries (50, newest first) matching the filter, for admins (the router checks the
   * role); the username is the literal name ignoring case (`%` and `_` are characters, not wildcards).
   */
  async list(_actor: Actor, filter: ActivityLogFilter) {
    const where: Prisma.ActivityLogWhereInput = {
      category: filter.category,
      action: filter.action,
      username: filter.username ? equalsIgnoringCase(filter.username) : undefined,
      success: filter.success,
      createdAt: filter.from || filter.to ? { gte: filter.from, lte: filter.to } : undefined,
    };
    const [total, rows] = await Promise.all([
      this.db.activityLog.count({ where }),
      this.db.activityLog.findMany({
        where,
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        skip: (filter.page - 1) * ACTIVITY_PAGE_SIZE,
        take: ACTIVITY_PAGE_SIZE,
      }),
    ]);
    return { rows, pagination: pagination(filter.page, ACTIVITY_PAGE_SIZE, total) };
  }

  /** Every action recorded so far, sorted (admins; the router checks the role). */
  async distinctActions(_actor: Actor): Promise<string[]> {
    const groups = await this.db.activityLog.groupBy({ by: ['action'], orderBy: { action: 'asc' } });
    return groups.map((g) => g.action);
  }

  /** Totals, the last 24 h, failures, counts by category and the ten most frequent actions (admins; the router checks the role). */
  async stats(_actor: Actor) {
    const since = new Date(this.deps.clock.now().getTime() - 24 * 60 * 60 * 1000);
    const [total, last24h, failures, byCategoryRows, top] = await Promise.all([
      this.db.activityLog.count(),
      this.db.activityLog.count({ where: { createdAt: { gte: since } } }),
      this.db.activityLog.count({ where: { success: false } }),
      this.db.activityLog.groupBy({ by: ['category'], _count: { _all: true } }),
      this.db.activityLog.groupBy({
        by: ['action'],
        _count: { action: true },
        orderBy: [{ _count: { action: 'desc' } }, { action: 'asc' }],
        take: 10,
      }),
    ]);
    const byCategory = Object.fromEntries(ACTIVITY_CATEGORIES.map((c) => [c, 0])) as Record<ActivityCategory, number>;
    for (const row of byCategoryRows) {
      if (row.category in byCategory) byCategory[row.category as ActivityCategory] = row._count._all;
    }
    return {
      total,
      last24h,
      failures,
      byCategory,
      topActions: top.map((t) => ({ action: t.action, count: t._count.action })),
    };
  }
}

import type { Prisma, PrismaClient } from '../../generated/prisma/client.js';
import { userOf, type Actor } from '../../lib/actor.js';
import type { Clock } from '../../lib/clock.js';
import { AppError } from '../../lib/errors.js';
import { pagination, type Pagination } from '../../lib/http.js';
import { isUniqueViolation } from '../../lib/prisma-errors.js';
import type { ActivityLogService } from '../activity-log/activity-log.service.js';
import {
  existingId,
  type CloseReportInput,
  type CreateReportInput,
  type ListReportsQuery,
} from './moderation.schemas.js';
import { refOrDeleted, summaryOrDeleted, userRefSelect, userSummarySelect } from './moderation.views.js';
import type { ReportQueueItem, ReportTargetView, ReportView } from './reports.views.js';

/** GET /admin/reports answers 50 a page. */
export const REPORTS_PAGE_SIZE = 50;

const reportInclude = {
  reporter: { select: userSummarySelect },
  resolvedBy: { select: userRefSelect },
  targetUser: { select: userSummarySelect },
  messageAuthor: { select: userSummarySelect },
  matchUser1: { select: userSummarySelect },
  matchUser2: { select: userSummarySelect },
  message: { select: { deletedAt: true } },
  match: { select: { status: true } },
} as const;

type ReportRow = Prisma.ReportGetPayload<{ include: typeof reportInclude }>;

/** What a report points at, resolved when it is created (snapshot columns of Report). */
type ResolvedTarget = Omit<Prisma.ReportUncheckedCreateInput, 'reporterId' | 'reason' | 'details' | 'targetType'>;

export interface ReportsDeps {
  db: PrismaClient;
  audit: ActivityLogService;
  clock: Clock;
}

/** The API's targetId: an integer for a message, the stored string otherwise. */
const targetIdOf = (row: { targetType: string; targetId: string }) =>
  row.targetType === 'message' ? Number(row.targetId) : row.targetId;

/** A report as the reporter sees it (reports.views.ts; status, type and reason are CHECKed by the table). */
function toCreatedView(row: ReportRow): ReportView {
  return {
    id: row.id,
    status: row.status as ReportView['status'],
    targetType: row.targetType as ReportView['targetType'],
    targetId: targetIdOf(row),
    reason: row.reason as ReportView['reason'],
    details: row.details,
    createdAt: row.createdAt,
  };
}

/** The target of a queue item from the report's snapshot and what still exists. */
function targetView(row: ReportRow): ReportTargetView {
  const event = { slug: row.eventSlug, name: row.eventName };
  if (row.targetType === 'user') return summaryOrDeleted(row.targetUser);
  if (row.targetType === 'message') {
    return {
      id: Number(row.targetId),
      content: row.messageContent,
      createdAt: row.messageCreatedAt,
      deleted: row.message === null || row.message.deletedAt !== null,
      author: summaryOrDeleted(row.messageAuthor),
      room: { id: row.messageRoomId, type: row.messageRoomType, event },
    };
  }
  return {
    slug: row.matchSlug,
    status: row.match?.status ?? 'deleted',
    event,
    users: [summaryOrDeleted(row.matchUser1), summaryOrDeleted(row.matchUser2)],
  };
}

/** An item of the admin queue (reports.views.ts). */
function toQueueItem(row: ReportRow): ReportQueueItem {
  const closed = row.resolvedAt !== null;
  return {
    ...toCreatedView(row),
    reporter: summaryOrDeleted(row.reporter),
    target: targetView(row),
    note: row.note,
    resolvedAt: row.resolvedAt,
    resolvedBy: closed ? refOrDeleted(row.resolvedBy) : null,
  };
}

export type { ReportQueueItem };

/**
 * Reports of users, messages and matches to the admins (table Report, owned here). Every user
 * reference of a report is SET NULL when that account is deleted and then shown as the
 * deleted-user placeholder; message and match reports keep a snapshot taken at creation.
 */
export class ReportsService {
  constructor(private readonly deps: ReportsDeps) {}

  /**
   * POST /reports. Check order: body 400 (the router) → target 404 / 400 → duplicate 409.
   * Targets: a user (regardless of case; 404 USER_NOT_FOUND, oneself 400 REPORT_SELF, blocks
   * notwithstanding); a message the reporter can read (event room of an event they participate
   * in, or the private room of their match; unknown, unreadable or deleted 404
   * MESSAGE_NOT_FOUND; their own 400 REPORT_SELF); a match they are a member of (404
   * MATCH_NOT_FOUND). One open report per reporter and target: the partial unique index
   * Report_open_reporter_target_key decides (409 REPORT_EXISTS). Audited as admin/report_create
   * (the reporter is the actor), which reaches the live activity-log stream.
   */
  async create(actor: Actor, input: CreateReportInput) {
    const reporterId = userOf(actor).id;
    const target = await this.resolveTarget(reporterId, input);
    let row: ReportRow;
    try {
      row = await this.deps.db.report.create({
        data: {
          ...target,
          reporterId,
          targetType: input.targetType,
          reason: input.reason,
          details: input.details ?? '',
        },
        include: reportInclude,
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw new AppError('REPORT_EXISTS');
      throw err;
    }
    const view = toCreatedView(row);
    await this.deps.audit.record(actor, {
      category: 'admin',
      action: 'report_create',
      resource: `report:${row.id}`,
      metadata: { reportId: row.id, targetType: row.targetType, targetId: view.targetId, reason: row.reason },
    });
    return view;
  }

  /** GET /admin/reports: newest first (createdAt, then id), 50 a page, optionally of one status. */
  async list(_actor: Actor, query: ListReportsQuery): Promise<{ items: ReportQueueItem[]; pagination: Pagination }> {
    const page = query.page ?? 1;
    const where: Prisma.ReportWhereInput = query.status ? { status: query.status } : {};
    const [total, rows] = await Promise.all([
      this.deps.db.report.count({ where }),
      this.deps.db.report.findMany({
        where,
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        skip: (page - 1) * REPORTS_PAGE_SIZE,
        take: REPORTS_PAGE_SIZE,
        include: reportInclude,
      }),
    ]);
    return { items: rows.map(toQueueItem), pagination: pagination(page, REPORTS_PAGE_SIZE, total) };
  }

  /**
   * PATCH /admin/reports/:id: closes an open report as resolved or dismissed with an optional
   * note, stamping resolvedAt and resolvedBy. Checks: unknown or malformed id 404
   * REPORT_NOT_FOUND → not open 409 REPORT_NOT_OPEN; a conditional update (status = 'open'), so
   * of two admins closing the same report one wins. The reporter is not told. Audited as
   * admin/report_update (resolvedBy: the actor's user).
   */
  async close(actor: Actor, { id: rawId, ...input }: CloseReportInput): Promise<ReportQueueItem> {
    const adminId = userOf(actor).id;
    const id = existingId(rawId);
    if (id === undefined) throw new AppError('REPORT_NOT_FOUND');
    const note = input.note === undefined || input.note === '' ? null : input.note;
    const { count } = await this.deps.db.report.updateMany({
      where: { id, status: 'open' },
      data: { status: input.status, note, resolvedAt: this.deps.clock.now(), resolvedById: adminId },
    });
    if (count === 0) {
      const exists = await this.deps.db.report.count({ where: { id } });
      throw new AppError(exists ? 'REPORT_NOT_OPEN' : 'REPORT_NOT_FOUND');
    }
    const row = await this.deps.db.report.findUniqueOrThrow({ where: { id }, include: reportInclude });
    await this.deps.audit.record(actor, {
      category: 'admin',
      action: 'report_update',
      resource: `report:${id}`,
      metadata: { status: input.status, note },
    });
    return toQueueItem(row);
  }

  private resolveTarget(reporterId: number, input: CreateReportInput): Promise<ResolvedTarget> {
    if (input.targetType === 'user') return this.userTarget(reporterId, String(input.targetId));
    if (input.targetType === 'message') return this.messageTarget(reporterId, Number(input.targetId));
    return this.matchTarget(reporterId, String(input.targetId));
  }

  private async userTarget(reporterId: number, username: string): Promise<ResolvedTarget> {
    const [user] = await this.deps.db.$queryRaw<{ id: number; username: string }[]>`
      SELECT id, username FROM "User" WHERE lower(username) = lower(${username})`;
    if (!user) throw new AppError('USER_NOT_FOUND');
    if (user.id === reporterId) throw new AppError('REPORT_SELF');
    return { targetId: user.username, targetKey: `user:${user.id}`, targetUserId: user.id };
  }

  /** A message the reporter can read: its event room's event has them as participant, or its match has them as member. */
  private async messageTarget(reporterId: number, messageId: number): Promise<ResolvedTarget> {
    const message = await this.deps.db.message.findFirst({
      where: {
        id: messageId,
        deletedAt: null,
        room: {
          OR: [
            { type: 'event', event: { participants: { some: { userId: reporterId } } } },
            { type: 'private', match: { OR: [{ user1Id: reporterId }, { user2Id: reporterId }] } },
          ],
        },
      },
      include: {
        room: {
          select: {
            id: true,
            type: true,
            event: { select: { slug: true, name: true } },
            match: { select: { event: { select: { slug: true, name: true } } } },
          },
        },
      },
    });
    if (!message) throw new AppError('MESSAGE_NOT_FOUND');
    if (message.userId === reporterId) throw new AppError('REPORT_SELF');
    const event = message.room.event ?? message.room.match?.event ?? null;
    return {
      targetId: String(message.id),
      targetKey: `message:${message.id}`,
      messageId: message.id,
      messageContent: message.content,
      messageCreatedAt: message.createdAt,
      messageAuthorId: message.userId,
      messageRoomId: message.room.id,
      messageRoomType: message.room.type,
      eventSlug: event?.slug ?? null,
      eventName: event?.name ?? null,
    };
  }

  private async matchTarget(reporterId: number, slug: string): Promise<ResolvedTarget> {
    const match = await this.deps.db.match.findUnique({
      where: { slug },
      include: { event: { select: { slug: true, name: true } } },
    });
    if (!match || (match.user1Id !== reporterId && match.user2Id !== reporterId)) throw new AppError('MATCH_NOT_FOUND');
    return {
      targetId: match.slug,
      targetKey: `match:${match.id}`,
      matchId: match.id,
      matchSlug: match.slug,
      matchUser1Id: match.user1Id,
      matchUser2Id: match.user2Id,
      eventSlug: match.event.slug,
      eventName: match.event.name,
    };
  }
}

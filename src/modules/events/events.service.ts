import QRCode from 'qrcode';
import { eventObjectSelect } from './events.views.js';
import type { Event, Prisma, PrismaClient } from '../../generated/prisma/client.js';
import type { Actor } from '../../lib/actor.js';
import type { AuthUser } from '../../lib/auth.js';
import type { Clock } from '../../lib/clock.js';
import { AppError } from '../../lib/errors.js';
import { randomSlug, randomToken } from '../../lib/ids.js';
import { isUniqueViolation } from '../../lib/prisma-errors.js';
import { isoTimestamp, RenderedJson, sql, type SqlReader } from '../../lib/sql.js';
import type { UserSummaryRow } from '../../lib/user-summary.js';
import type { Notifier } from '../../realtime/notifier.js';
import type { ActivityLogService } from '../activity-log/activity-log.service.js';
import type { EventAccess } from './event-access.js';

export const EVENT_ROOM_TYPE = 'event';
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Interactive transactions of check-in and leave are tiny, but a crowd scanning the QR code at
 * once queues them on the connection pool: wait for a connection rather than failing.
 */
const TX_OPTIONS = { maxWait: 15_000, timeout: 15_000 } as const;

const checkinEventSelect = {
  id: true,
  slug: true,
  name: true,
  location: true,
  startDate: true,
  endDate: true,
} as const;

export interface EventFields {
  name: string;
  location: string;
  startDate: Date;
  endDate: Date;
  worldRegistryId?: string | null;
  description?: string | null;
}

export type QrFormat = 'png' | 'svg';

export interface CheckinSettings {
  /** refuse check-in outside [startDate - 1 day, endDate + 1 day] (on in production) */
  enforceWindow: boolean;
  /** the front end's base URL: check-in links point there */
  frontendUrl: string;
}

/** The check-in window of an event: from a day before its start to a day after its end. */
export function checkinWindow(event: Pick<Event, 'startDate' | 'endDate'>) {
  return {
    validFrom: new Date(event.startDate.getTime() - DAY_MS),
    validUntil: new Date(event.endDate.getTime() + DAY_MS),
  };
}

function assertDateOrder(startDate: Date, endDate: Date, message = 'endDate must not be before startDate') {
  if (endDate.getTime() < startDate.getTime()) {
    throw new AppError('VALIDATION_ERROR', { details: [{ field: 'endDate', message }] });
  }
}

export interface EventSummary {
  id: number;
  slug: string;
  name: string;
  location: string;
  startDate: Date;
  endDate: Date;
  worldRegistryId: string | null;
  participantsCount: number;
  description: string | null;
  createdAt: Date;
  isJoined: boolean;
  joinedAt: Date | null;
}

/**
 * Every event with its live participant count (the index
 * EventParticipant(eventId, joinedAt)) and the caller's participation (the unique
 * (userId, eventId)); joined first, then by startDate and id.
 */
const eventSummaries = sql(
  'events_list',
  `SELECT e.id, e.slug, e.name, e.location, e."startDate", e."endDate", e."worldRegistryId",
          (SELECT count(*)::int FROM "EventParticipant" c WHERE c."eventId" = e.id) AS "participantsCount",
          e.description, e."createdAt", (p.id IS NOT NULL) AS "isJoined", p."joinedAt"
   FROM "Event" e
   LEFT JOIN "EventParticipant" p ON p."eventId" = e.id AND p."userId" = $1
   ORDER BY (p.id IS NULL), e."startDate", e.id`,
);

/** A participant in the details view. */
export interface ParticipantView extends Omit<UserSummaryRow, 'id'> {
  userId: number;
  joinedAt: Date;
}

interface EventDetailsRow {
  id: number;
  slug: string;
  name: string;
  location: string;
  startDate: Date;
  endDate: Date;
  description: string | null;
  registrationDeadline: Date | null;
  matchingRunAt: Date | null;
  isParticipant: boolean;
  checkinToken: string | null;
  totalParticipants: number;
  /** ParticipantView[] rendered by PostgreSQL */
  participants: string;
}

/**
 * The event of a slug, whether the caller participates, its check-in token, and its
 * participants newest first, rendered as one json text (EventParticipant(eventId, joinedAt) and
 * the users' primary key): a big event has thousands, which the service passes on unparsed.
 */
const eventDetails = sql(
  'events_details',
  `SELECT e.id, e.slug, e.name, e.location, e."startDate", e."endDate", e.description,
          e."registrationDeadline", e."matchingRunAt",
          (me.id IS NOT NULL) AS "isParticipant", t.token AS "checkinToken",
          ps.total AS "totalParticipants", ps.participants
   FROM "Event" e
   LEFT JOIN "EventParticipant" me ON me."eventId" = e.id AND me."userId" = $2
   LEFT JOIN "EventCheckinToken" t ON t."eventId" = e.id
   CROSS JOIN LATERAL (
     SELECT count(*)::int AS total,
            coalesce(json_agg(json_build_object(
              'userId', u.id, 'username', u.username, 'avatar', u.avatar,
              'firstName', u."firstName", 'lastName', u."lastName", 'joinedAt', ${isoTimestamp('p."joinedAt"')})
            ORDER BY p."joinedAt" DESC, p.id DESC), '[]'::json)::text AS participants
     FROM "EventParticipant" p JOIN "User" u ON u.id = p."userId"
     WHERE p."eventId" = e.id) ps
   WHERE e.slug = $1`,
);

/** Events: lists and views, the check-in token and QR code, check-in and leave, admin management. */
export class EventsService {
  constructor(
    private readonly db: PrismaClient,
    private readonly sql: SqlReader,
    private readonly notifier: Notifier,
    private readonly audit: ActivityLogService,
    private readonly eventAccess: EventAccess,
    private readonly clock: Clock,
    private readonly settings: CheckinSettings,
  ) {}

  // ---------------------------------------------------------------- list and public view

  /**
   * Event summaries for the caller (events.openapi.ts): participantsCount is the live number of
   * participation records; events the caller joined come first, then by startDate ascending.
   * One statement (eventSummaries).
   */
  async list(userId: number): Promise<EventSummary[]> {
    return this.sql.rows<EventSummary>(eventSummaries, [userId]);
  }

  /** The public event view: the event, its group room(s) only (never private rooms), number of matches; 404 for an unknown slug. */
  async getPublic(slug: string) {
    const event = await this.db.event.findUnique({
      where: { slug },
      select: {
        ...eventObjectSelect,
        chatRooms: {
          where: { type: EVENT_ROOM_TYPE },
          select: { id: true, eventId: true, type: true, createdAt: true },
        },
        _count: { select: { matches: true } },
      },
    });
    if (!event) throw new AppError('EVENT_NOT_FOUND');
    return event;
  }

  // ---------------------------------------------------------------- check-in token and details

  /**
   * Details of an event: event 404 first. The `checkin` block is given to admins and
   * participants only; other callers get `checkin: null`. The QR code is shown at the venue:
   * handing its token to anyone with an account would let them check in remotely.
   */
  async getDetails(slug: string, user: AuthUser) {
    const [row] = await this.sql.rows<EventDetailsRow>(eventDetails, [slug, user.id]);
    if (!row) throw new AppError('EVENT_NOT_FOUND');
    const { isParticipant, checkinToken, totalParticipants, participants, ...event } = row;
    let checkin = null;
    if (user.isAdmin || isParticipant) {
      // the token is made on the first request that may see it (a write, once per event)
      const token = checkinToken ?? (await this.ensureCheckinToken(event.id));
      checkin = { token, url: this.checkinUrl(token), ...checkinWindow(event) };
    }
    return {
      event,
      checkin,
      participants: new RenderedJson<ParticipantView[]>(participants),
      stats: { totalParticipants },
    };
  }

  /** The check-in URL as a QR image. Checks: event 404 → admin or participant, else 403. */
  async getCheckinQr(slug: string, user: AuthUser, format: QrFormat) {
    const event = await this.eventAccess.getBySlug(slug);
    if (!(await this.canSeeCheckin(event, user))) throw new AppError('CHECKIN_QR_FORBIDDEN');
    const url = this.checkinUrl(await this.ensureCheckinToken(event.id));
    const options = { errorCorrectionLevel: 'M', margin: 2 } as const;
    if (format === 'svg') {
      return { contentType: 'image/svg+xml', body: await QRCode.toString(url, { ...options, type: 'svg' }) };
    }
    return { contentType: 'image/png', body: await QRCode.toBuffer(url, { ...options, type: 'png', width: 512 }) };
  }

  private checkinUrl(token: string): string {
    return `${this.settings.frontendUrl}/events/checkin/${token}`;
  }

  /** The event's check-in token: created on first request, reused afterwards (also under concurrency). */
  private async ensureCheckinToken(eventId: number): Promise<string> {
    const existing = await this.db.eventCheckinToken.findUnique({ where: { eventId } });
    if (existing) return existing.token;
    try {
      const created = await this.db.eventCheckinToken.create({ data: { eventId, token: randomToken(24) } });
      return created.token;
    } catch (err) {
      // another request created it first: use theirs
      if (!isUniqueViolation(err)) throw err;
      return (await this.db.eventCheckinToken.findUniqueOrThrow({ where: { eventId } })).token;
    }
  }

  private async checkinInfo(event: Event) {
    const token = await this.ensureCheckinToken(event.id);
    return { token, url: this.checkinUrl(token), ...checkinWindow(event) };
  }

  /** Admins and participants may see the check-in token and QR code. */
  private async canSeeCheckin(event: Event, user: AuthUser): Promise<boolean> {
    if (user.isAdmin) return true;
    return (await this.eventAccess.findParticipation(event.id, user.id)) !== null;
  }

  // ---------------------------------------------------------------- check-in and leave

  /**
   * Check-in by QR token. Checks: token 404 → the window (400, only when enforced) → already a
   * participant (alreadyCheckedIn: true, nothing changes, nothing logged). The unique
   * (userId, eventId) decides races: the participation insert and the counter increment share
   * one transaction, and a concurrent duplicate insert fails with P2002, rolls back (no
   * increment) and answers alreadyCheckedIn. The event's group room is created with ON CONFLICT
   * DO NOTHING in the same transaction, so two first check-ins cannot both create it. A new
   * participation is logged ("checkin").
   */
  async checkin(actor: Actor, token: string, userId: number) {
    const row = await this.db.eventCheckinToken.findUnique({
      where: { token: token.slice(0, 100) },
      select: { event: { select: checkinEventSelect } },
    });
    if (!row) throw new AppError('INVALID_CHECKIN_TOKEN');
    const { event } = row;
    this.assertInCheckinWindow(event);
    const result = await this.join(event, userId);
    if (!result.alreadyCheckedIn) {
      await this.audit.record(actor, { category: 'event', action: 'checkin', resource: `event:${event.slug}` });
    }
    return result;
  }

  private assertInCheckinWindow(event: Pick<Event, 'startDate' | 'endDate'>): void {
    if (!this.settings.enforceWindow) return;
    const { validFrom, validUntil } = checkinWindow(event);
    const now = this.clock.now().getTime();
    if (now < validFrom.getTime() || now > validUntil.getTime()) throw new AppError('CHECKIN_NOT_AVAILABLE');
  }

  private async join<E extends { id: number }>(
    event: E,
    userId: number,
  ): Promise<{ alreadyCheckedIn: boolean; event: E; joinedAt: Date }> {
    const existing = await this.eventAccess.findParticipation(event.id, userId);
    if (existing) return { alreadyCheckedIn: true, event, joinedAt: existing.joinedAt };
    try {
      const participation = await this.db.$transaction(async (tx) => {
        const created = await tx.eventParticipant.create({ data: { userId, eventId: event.id } });
        await tx.event.update({ where: { id: event.id }, data: { participantsCount: { increment: 1 } } });
        await tx.chatRoom.createMany({ data: [{ eventId: event.id, type: EVENT_ROOM_TYPE }], skipDuplicates: true });
        return created;
      }, TX_OPTIONS);
      return { alreadyCheckedIn: false, event, joinedAt: participation.joinedAt };
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      const participation = await this.eventAccess.findParticipation(event.id, userId);
      // the other insert was rolled back or the user left in between: try once more from the start
      if (!participation) return this.join(event, userId);
      return { alreadyCheckedIn: true, event, joinedAt: participation.joinedAt };
    }
  }

  /**
   * Leave: event 404 → not a participant 400. The participation row goes (heats by cascade) and
   * the counter drops, in one transaction; then the user's sockets leave the event room and the
   * leave is logged.
   */
  async leave(actor: Actor, slug: string, userId: number): Promise<Event> {
    const event = await this.eventAccess.getBySlug(slug);
    await this.db.$transaction(async (tx) => {
      const { count } = await tx.eventParticipant.deleteMany({ where: { userId, eventId: event.id } });
      if (count === 0) throw new AppError('NOT_JOINED');
      await tx.event.update({ where: { id: event.id }, data: { participantsCount: { decrement: 1 } } });
    }, TX_OPTIONS);
    await this.notifier.removeUserFromEventRoom(userId, event.id);
    await this.audit.record(actor, { category: 'event', action: 'leave', resource: `event:${event.slug}` });
    return event;
  }

  /** The data export (src/modules/privacy): the user's participations, newest join first. */
  participationsOfUser(userId: number) {
    return this.db.eventParticipant.findMany({
      where: { userId },
      orderBy: [{ joinedAt: 'desc' }, { id: 'desc' }],
      select: {
        event: { select: { id: true, slug: true, name: true, location: true, startDate: true, endDate: true } },
        joinedAt: true,
        competitorNumber: true,
        recorderOptOut: true,
      },
    });
  }

  /**
   * Account deletion (src/modules/privacy), inside the caller's transaction: every participation
   * of the user goes (heats and their recording suggestions by cascade) and each of those events'
   * participantsCount drops by one, as a leave does. Answers the events' ids.
   */
  async removeParticipationsOf(tx: Prisma.TransactionClient, userId: number): Promise<number[]> {
    const left = await tx.$queryRaw<{ eventId: number }[]>`
      DELETE FROM "EventParticipant" WHERE "userId" = ${userId} RETURNING "eventId"`;
    const eventIds = left.map((row) => row.eventId);
    if (eventIds.length > 0) {
      await tx.event.updateMany({ where: { id: { in: eventIds } }, data: { participantsCount: { decrement: 1 } } });
    }
    return eventIds;
  }

  // ---------------------------------------------------------------- admin management

  /**
   * Creates an event with a random slug (POST /admin/events and the CLI's event:create).
   * Checks: endDate not before startDate (400). Logged as "event_create".
   */
  async create(actor: Actor, fields: EventFields) {
    assertDateOrder(fields.startDate, fields.endDate);
    const event = await this.db.event.create({
      data: {
        slug: randomSlug(),
        name: fields.name,
        location: fields.location,
        startDate: fields.startDate,
        endDate: fields.endDate,
        worldRegistryId: fields.worldRegistryId || null,
        description: fields.description || null,
      },
    });
    await this.audit.record(actor, { category: 'event', action: 'event_create', resource: `event:${event.slug}` });
    return event;
  }

  /**
   * Partial update of an event by an admin. Checks: event 404 → the date order against the
   * merged values (400). Fields left undefined stay; an empty or null optional text clears it. Logged as "event_update"
   * with the names of the given fields.
   */
  async update(actor: Actor, slug: string, changes: Partial<EventFields>) {
    const event = await this.eventAccess.getBySlug(slug);
    assertDateOrder(changes.startDate ?? event.startDate, changes.endDate ?? event.endDate);
    const data: Partial<EventFields> = {};
    for (const key of ['name', 'location', 'startDate', 'endDate', 'worldRegistryId', 'description'] as const) {
      if (changes[key] !== undefined)
        (data as Record<string, unknown>)[key] = changes[key] === '' ? null : changes[key];
    }
    const updated = await this.db.event.update({ where: { id: event.id }, data });
    await this.audit.record(actor, {
      category: 'event',
      action: 'event_update',
      resource: `event:${updated.slug}`,
      metadata: { fields: Object.keys(data) },
    });
    return updated;
  }
}

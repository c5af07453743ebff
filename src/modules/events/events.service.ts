import { Prisma, type PrismaClient } from '../../generated/prisma/client.js';
import { userOf, type Actor } from '../../lib/actor.js';
import { AppError } from '../../lib/errors.js';
import { randomSlug } from '../../lib/ids.js';
import { RenderedJson, RenderedList, sql, type SqlReader } from '../../lib/sql.js';
import type { ReadCache } from '../../lib/read-cache.js';
import type { ActivityLogService } from '../activity-log/activity-log.service.js';
import type { CheckinService } from './checkin.service.js';
import { EVENT_ROOM_TYPE } from './checkin.service.js';
import type { EventAccess } from './event-access.js';
import type { CreateEventInput, SlugInput, UpdateEventInput } from './events.schemas.js';
import {
  eventBriefView,
  eventObjectView,
  eventSummaryView,
  participantView,
  type EventObject,
  type EventSummary,
  type ParticipantView,
} from './events.views.js';

/**
 * Events: the list, the public view and the details, and their management by admins. The events
 * feature owns the tables `Event`, `EventParticipant` and `EventCheckinToken`; this service writes
 * Event (other features through setRegistrationDeadline and setScheduleConfig), checkin.service.ts
 * the participation rows and the check-in tokens.
 */

export interface EventsServiceDeps {
  db: PrismaClient;
  sql: SqlReader;
  audit: ActivityLogService;
  eventAccess: EventAccess;
  checkin: Pick<CheckinService, 'checkinBlock'>;
}

function assertDateOrder(startDate: Date, endDate: Date, message = 'endDate must not be before startDate') {
  if (endDate.getTime() < startDate.getTime()) {
    throw new AppError('VALIDATION_ERROR', { details: [{ field: 'endDate', message }] });
  }
}

/**
 * Every event with its live participant count (the index EventParticipant(eventId, joinedAt))
 * and the caller's participation (the unique (userId, eventId)); joined first, then by
 * startDate and id. The fields are those of eventSummaryView.
 */
const eventSummaries = sql(
  'events_list',
  `SELECT ${eventSummaryView.columns()}
   FROM "Event" e
   LEFT JOIN "EventParticipant" p ON p."eventId" = e.id AND p."userId" = $1
   ORDER BY (p.id IS NULL), e."startDate", e.id`,
);

/**
 * The list's part that is the same for every caller: every event with its live participant
 * count, by startDate and id, the caller's fields empty (the join matches no row).
 */
const eventsListed = sql(
  'events_list_all',
  `SELECT ${eventSummaryView.columns()}
   FROM "Event" e
   LEFT JOIN "EventParticipant" p ON false
   ORDER BY e."startDate", e.id`,
);

/** The caller's part: the events the caller joined (the unique (userId, eventId)). */
const callerParticipations = sql(
  'events_list_joined',
  'SELECT "eventId", "joinedAt" FROM "EventParticipant" WHERE "userId" = $1',
  { perCaller: 1 },
);

/** What the list's shared part is read from. */
const LISTED_TABLES = ['Event', 'EventParticipant'];

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
          (me.id IS NOT NULL) AS "isParticipant", t.token AS "checkinToken"
   FROM "Event" e
   LEFT JOIN "EventParticipant" me ON me."eventId" = e.id AND me."userId" = $2
   LEFT JOIN "EventCheckinToken" t ON t."eventId" = e.id
   WHERE e.slug = $1`,
  { perCaller: 2 },
);

/** The participants of an event, newest join first, rendered by PostgreSQL (the same for every caller). */
const eventParticipants = sql(
  'events_details_participants',
  `SELECT count(*)::int AS total,
          coalesce(json_agg(${participantView.json()} ORDER BY p."joinedAt" DESC, p.id DESC), '[]'::json)::text
            AS participants
   FROM "EventParticipant" p JOIN "User" u ON u.id = p."userId"
   WHERE p."eventId" = $1`,
);

interface EventParticipantsRow {
  total: number;
  /** ParticipantView[] rendered by PostgreSQL */
  participants: string;
}

/**
 * The warm-up's callers (src/lib/warm-up.ts): the busiest event that has not ended more than a
 * week ago (else the busiest of all), and the first `$1` of its participants who are not suspended.
 */
const warmUpCallers = sql(
  'events_warm_up_callers',
  `SELECT e.slug,
          array(SELECT p."userId" FROM "EventParticipant" p JOIN "User" u ON u.id = p."userId"
                WHERE p."eventId" = e.id AND u."suspendedAt" IS NULL ORDER BY p.id LIMIT $1) AS "userIds"
   FROM "Event" e
   ORDER BY (e."endDate" >= now() - interval '7 days') DESC, e."participantsCount" DESC, e.id
   LIMIT 1`,
);

/** What the participants of the details are read from (a participation, a participant's user row). */
const PARTICIPANTS_TABLES = ['EventParticipant', 'User'];

export class EventsService {
  constructor(private readonly deps: EventsServiceDeps) {}

  /**
   * Event summaries for the caller (eventSummaryView): participantsCount is the live number of
   * participation records; events the caller joined come first, then by startDate ascending.
   * One statement.
   */
  async list(
    actor: Actor,
    reads?: Pick<ReadCache, 'readThrough'>,
  ): Promise<EventSummary[] | RenderedList<EventSummary>> {
    const userId = userOf(actor).id;
    if (!reads) return this.deps.sql.rows<EventSummary>(eventSummaries, [userId]);
    // With the request's fresh read cache: the events and counts once for every caller, each
    // row's JSON encoded once too, and the caller's participations by the index, put together
    // as the one statement orders them.
    const readListed = async () => {
      const rows = await this.deps.sql.rows<EventSummary>(eventsListed, []);
      return { rows, texts: rows.map((row) => JSON.stringify(row)) };
    };
    const [listed, joined] = await Promise.all([
      reads.readThrough('events listed', LISTED_TABLES, (l) => 1024 * l.rows.length, readListed),
      this.deps.sql.rows<{ eventId: number; joinedAt: Date }>(callerParticipations, [userId]),
    ]);
    const joinedAt = new Map(joined.map((p) => [p.eventId, p.joinedAt]));
    // the shared rows are never changed: a joined event is encoded again with the caller's fields
    const mine: string[] = [];
    const others: string[] = [];
    listed.rows.forEach((e, i) => {
      const at = joinedAt.get(e.id);
      if (at) mine.push(JSON.stringify({ ...e, isJoined: true, joinedAt: at }));
      else others.push(listed.texts[i]);
    });
    return new RenderedList<EventSummary>([...mine, ...others]);
  }

  /** The public event view: the event, its group room(s) only (never private rooms), number of matches; 404 for an unknown slug. */
  async getPublic(_actor: Actor, { slug }: SlugInput) {
    const event = await this.deps.db.event.findUnique({
      where: { slug },
      select: {
        ...eventObjectView.select,
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

  /**
   * Details of an event: event 404 first. The `checkin` block is given to admins and
   * participants only; other callers get `checkin: null`. The QR code is shown at the venue:
   * handing its token to anyone with an account would let them check in remotely.
   */
  async getDetails(actor: Actor, { slug }: SlugInput, reads?: Pick<ReadCache, 'readThrough'>) {
    const user = userOf(actor);
    const [row] = await this.deps.sql.rows<EventDetailsRow>(eventDetails, [slug, user.id]);
    if (!row) throw new AppError('EVENT_NOT_FOUND');
    const { isParticipant, checkinToken, ...event } = row;
    const [checkin, { total, participants }] = await Promise.all([
      user.isAdmin || isParticipant ? this.deps.checkin.checkinBlock(event, checkinToken) : null,
      this.participantsOf(event.id, reads),
    ]);
    return {
      event,
      checkin,
      participants,
      stats: { totalParticipants: total },
    };
  }

  /**
   * The participants of the details: the same for every caller, so with `reads` (the request's
   * fresh read cache) they are read once for all callers while no participation or user changed,
   * instead of at every caller's first read (a 3 000-participant list is most of a miss's cost).
   */
  private async participantsOf(eventId: number, reads?: Pick<ReadCache, 'readThrough'>) {
    // one RenderedJson for every caller while the list is kept: its bytes are encoded once (src/lib/http.ts)
    const read = async () => {
      const [{ total, participants }] = await this.deps.sql.rows<EventParticipantsRow>(eventParticipants, [eventId]);
      return { total, participants: new RenderedJson<ParticipantView[]>(participants) };
    };
    if (!reads) return read();
    return reads.readThrough(`event participants ${eventId}`, PARTICIPANTS_TABLES, (r) => r.participants.size, read);
  }

  /** Who the start-up's warm-up reads as (src/lib/warm-up.ts); undefined without a participant. */
  async warmUpCallers(limit: number): Promise<{ slug: string; userIds: number[] } | undefined> {
    const [row] = await this.deps.sql.rows<{ slug: string; userIds: number[] }>(warmUpCallers, [limit]);
    return row && row.userIds.length > 0 ? row : undefined;
  }

  /** The data export (src/modules/privacy): the user's participations, newest join first. */
  participationsOfUser(userId: number) {
    return this.deps.db.eventParticipant.findMany({
      where: { userId },
      orderBy: [{ joinedAt: 'desc' }, { id: 'desc' }],
      select: {
        event: { select: eventBriefView.select },
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
  async create(actor: Actor, fields: CreateEventInput): Promise<EventObject> {
    assertDateOrder(fields.startDate, fields.endDate);
    const event = await this.deps.db.event.create({
      data: {
        slug: randomSlug(),
        name: fields.name,
        location: fields.location,
        startDate: fields.startDate,
        endDate: fields.endDate,
        worldRegistryId: fields.worldRegistryId || null,
        description: fields.description || null,
      },
      select: eventObjectView.select,
    });
    await this.deps.audit.record(actor, { category: 'event', action: 'event_create', resource: `event:${event.slug}` });
    return event;
  }

  /**
   * Partial update of an event by an admin. Checks: event 404 → the date order against the
   * merged values (400). Fields left undefined stay; an empty or null optional text clears it.
   * Logged as "event_update" with the names of the given fields.
   */
  async update(actor: Actor, { slug, ...changes }: UpdateEventInput): Promise<EventObject> {
    const event = await this.deps.eventAccess.getBySlug(slug);
    assertDateOrder(changes.startDate ?? event.startDate, changes.endDate ?? event.endDate);
    const data: Prisma.EventUpdateInput = {};
    for (const key of ['name', 'location', 'startDate', 'endDate', 'worldRegistryId', 'description'] as const) {
      if (changes[key] !== undefined)
        (data as Record<string, unknown>)[key] = changes[key] === '' ? null : changes[key];
    }
    const updated = await this.deps.db.event.update({ where: { id: event.id }, data, select: eventObjectView.select });
    await this.deps.audit.record(actor, {
      category: 'event',
      action: 'event_update',
      resource: `event:${updated.slug}`,
      metadata: { fields: Object.keys(data) },
    });
    return updated;
  }

  /**
   * Event settings (src/modules/event-settings): sets or clears the event's heat registration
   * deadline; answers the stored value.
   */
  async setRegistrationDeadline(
    _actor: Actor,
    { eventId, registrationDeadline }: { eventId: number; registrationDeadline: Date | null },
  ): Promise<{ registrationDeadline: Date | null }> {
    return this.deps.db.event.update({
      where: { id: eventId },
      data: { registrationDeadline },
      select: { registrationDeadline: true },
    });
  }

  /**
   * Event settings (src/modules/event-settings): sets or clears which divisions share a time
   * slot; null is stored as SQL NULL (Prisma.DbNull), never the JSON value null.
   */
  async setScheduleConfig(
    _actor: Actor,
    { eventId, scheduleConfig }: { eventId: number; scheduleConfig: Prisma.InputJsonValue | null },
  ): Promise<void> {
    await this.deps.db.event.update({
      where: { id: eventId },
      data: { scheduleConfig: scheduleConfig === null ? Prisma.DbNull : scheduleConfig },
    });
  }
}

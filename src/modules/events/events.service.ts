import QRCode from 'qrcode';
import type { Event } from '../../generated/prisma/client.js';
import { config } from '../../config/index.js';
import { AppError } from '../../lib/errors.js';
import { randomSlug, randomToken } from '../../lib/ids.js';
import { prisma } from '../../lib/prisma.js';
import { userSummarySelect } from '../../lib/user-summary.js';
import { isUniqueViolation } from '../../lib/prisma-errors.js';
import type { AuthUser } from '../../lib/auth.js';
import { findParticipation, getEventBySlug } from './event-access.js';

export const EVENT_ROOM_TYPE = 'event';
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Interactive transactions of check-in and leave are tiny, but a crowd scanning the QR code at
 * once queues them on the connection pool: wait for a connection rather than failing.
 */
const TX_OPTIONS = { maxWait: 15_000, timeout: 15_000 } as const;

export const EventMessages = {
  invalidCheckinToken: 'Invalid check-in token',
  checkinWindow: 'Check-in is not available for this event at this time',
  notParticipant: 'You are not a participant of this event',
  qrForbidden: 'Only admins and participants can see the check-in QR code',
} as const;

const summaryFields = {
  id: true,
  slug: true,
  name: true,
  location: true,
  startDate: true,
  endDate: true,
  worldRegistryId: true,
  participantsCount: true,
  description: true,
  createdAt: true,
} as const;

// ---------------------------------------------------------------- list and public view

/**
 * Event summaries for the caller (SPEC.md "Event summary"): participantsCount is the live number
 * of participation records; events the caller joined come first, then by startDate ascending.
 */
export async function listEvents(userId: number) {
  const rows = await prisma.event.findMany({
    select: {
      ...summaryFields,
      _count: { select: { participants: true } },
      participants: { where: { userId }, select: { joinedAt: true } },
    },
    orderBy: [{ startDate: 'asc' }, { id: 'asc' }],
  });
  const summaries = rows.map(({ _count, participants, ...event }) => ({
    ...event,
    participantsCount: _count.participants,
    isJoined: participants.length > 0,
    joinedAt: participants[0]?.joinedAt ?? null,
  }));
  // stable sort: joined first, startDate order kept inside both groups
  return summaries.sort((a, b) => Number(b.isJoined) - Number(a.isJoined));
}

/** The public event view: the event, its group room(s) only (never private rooms), number of matches. */
export async function getPublicEvent(slug: string) {
  const event = await prisma.event.findUnique({
    where: { slug },
    include: {
      chatRooms: { where: { type: EVENT_ROOM_TYPE }, select: { id: true, eventId: true, type: true, createdAt: true } },
      _count: { select: { matches: true } },
    },
  });
  if (!event) throw new AppError('EVENT_NOT_FOUND');
  return event;
}

// ---------------------------------------------------------------- check-in token and details

export function checkinWindow(event: Pick<Event, 'startDate' | 'endDate'>) {
  return {
    validFrom: new Date(event.startDate.getTime() - DAY_MS),
    validUntil: new Date(event.endDate.getTime() + DAY_MS),
  };
}

export function checkinUrl(token: string): string {
  return `${config.frontendUrl}/events/checkin/${token}`;
}

/** The event's check-in token: created on first request, reused afterwards (also under concurrency). */
export async function ensureCheckinToken(eventId: number): Promise<string> {
  const existing = await prisma.eventCheckinToken.findUnique({ where: { eventId } });
  if (existing) return existing.token;
  try {
    const created = await prisma.eventCheckinToken.create({ data: { eventId, token: randomToken(24) } });
    return created.token;
  } catch (err) {
    // another request created it first: use theirs
    if (!isUniqueViolation(err)) throw err;
    return (await prisma.eventCheckinToken.findUniqueOrThrow({ where: { eventId } })).token;
  }
}

async function checkinInfo(event: Event) {
  const token = await ensureCheckinToken(event.id);
  return { token, url: checkinUrl(token), ...checkinWindow(event) };
}

/** Admins and participants may see the check-in token / QR code; see canSeeCheckin. */
async function canSeeCheckin(event: Event, user: AuthUser): Promise<boolean> {
  if (user.isAdmin) return true;
  return (await findParticipation(event.id, user.id)) !== null;
}

/**
 * Details of an event (SPEC.md "Details"). The `checkin` block is given to admins and
 * participants only; other callers get `checkin: null`. The QR code is shown at the venue: handing
 * its token to anyone with an account would let them check in remotely.
 */
export async function getEventDetails(slug: string, user: AuthUser) {
  const event = await getEventBySlug(slug);
  const [participants, checkin] = await Promise.all([
    prisma.eventParticipant.findMany({
      where: { eventId: event.id },
      orderBy: [{ joinedAt: 'desc' }, { id: 'desc' }],
      select: {
        joinedAt: true,
        user: { select: userSummarySelect },
      },
    }),
    canSeeCheckin(event, user).then((allowed) => (allowed ? checkinInfo(event) : null)),
  ]);
  return {
    event: {
      id: event.id,
      slug: event.slug,
      name: event.name,
      location: event.location,
      startDate: event.startDate,
      endDate: event.endDate,
      description: event.description,
      registrationDeadline: event.registrationDeadline,
      matchingRunAt: event.matchingRunAt,
    },
    checkin,
    participants: participants.map(({ joinedAt, user: u }) => ({
      userId: u.id,
      username: u.username,
      avatar: u.avatar,
      firstName: u.firstName,
      lastName: u.lastName,
      joinedAt,
    })),
    stats: { totalParticipants: participants.length },
  };
}

export type QrFormat = 'png' | 'svg';

/** The check-in URL as a QR image, for admins and participants (DECISIONS.md "Events"). */
export async function getCheckinQr(slug: string, user: AuthUser, format: QrFormat) {
  const event = await getEventBySlug(slug);
  if (!(await canSeeCheckin(event, user))) throw new AppError('CHECKIN_QR_FORBIDDEN');
  const url = checkinUrl(await ensureCheckinToken(event.id));
  const options = { errorCorrectionLevel: 'M', margin: 2 } as const;
  if (format === 'svg') {
    return { contentType: 'image/svg+xml', body: await QRCode.toString(url, { ...options, type: 'svg' }) };
  }
  return { contentType: 'image/png', body: await QRCode.toBuffer(url, { ...options, type: 'png', width: 512 }) };
}

// ---------------------------------------------------------------- check-in and leave

const checkinEventSelect = { id: true, slug: true, name: true, location: true, startDate: true, endDate: true } as const;

/**
 * Check-in by QR token (SPEC.md "Event participation"). The unique (userId, eventId) decides
 * races: the participation insert and the counter increment share one transaction, and a
 * concurrent duplicate insert fails with P2002, rolls back (no increment) and answers
 * alreadyCheckedIn. The event's group room is created with ON CONFLICT DO NOTHING in the same
 * transaction, so two first check-ins cannot both create it.
 */
export async function checkin(token: string, userId: number) {
  const row = await prisma.eventCheckinToken.findUnique({
    where: { token: token.slice(0, 100) },
    select: { event: { select: checkinEventSelect } },
  });
  if (!row) throw new AppError('INVALID_CHECKIN_TOKEN');
  const { event } = row;

  if (config.checkin.enforceWindow) {
    const { validFrom, validUntil } = checkinWindow(event);
    const now = Date.now();
    if (now < validFrom.getTime() || now > validUntil.getTime()) {
      throw new AppError('CHECKIN_NOT_AVAILABLE');
    }
  }

  const existing = await findParticipation(event.id, userId);
  if (existing) return { alreadyCheckedIn: true, event, joinedAt: existing.joinedAt };

  try {
    const participation = await prisma.$transaction(async (tx) => {
      const created = await tx.eventParticipant.create({ data: { userId, eventId: event.id } });
      await tx.event.update({ where: { id: event.id }, data: { participantsCount: { increment: 1 } } });
      await tx.chatRoom.createMany({ data: [{ eventId: event.id, type: EVENT_ROOM_TYPE }], skipDuplicates: true });
      return created;
    }, TX_OPTIONS);
    return { alreadyCheckedIn: false, event, joinedAt: participation.joinedAt };
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    const participation = await findParticipation(event.id, userId);
    // the other insert was rolled back or the user left in between: try once more from the start
    if (!participation) return checkin(token, userId);
    return { alreadyCheckedIn: true, event, joinedAt: participation.joinedAt };
  }
}

/** Leave: the participation row goes (heats by cascade) and the counter drops, in one transaction. */
export async function leaveEvent(slug: string, userId: number) {
  const event = await getEventBySlug(slug);
  await prisma.$transaction(async (tx) => {
    const { count } = await tx.eventParticipant.deleteMany({ where: { userId, eventId: event.id } });
    if (count === 0) throw new AppError('NOT_JOINED');
    await tx.event.update({ where: { id: event.id }, data: { participantsCount: { decrement: 1 } } });
  }, TX_OPTIONS);
  return event;
}

// ---------------------------------------------------------------- admin management

export interface EventFields {
  name: string;
  location: string;
  startDate: Date;
  endDate: Date;
  worldRegistryId?: string | null;
  description?: string | null;
}

function assertDateOrder(startDate: Date, endDate: Date, message = 'endDate must not be before startDate') {
  if (endDate.getTime() < startDate.getTime()) {
    throw new AppError('VALIDATION_ERROR', { details: [{ field: 'endDate', message }] });
  }
}

/** Creates an event with a random slug (POST /admin/events and the CLI's event:create). */
export async function createEvent(fields: EventFields) {
  assertDateOrder(fields.startDate, fields.endDate);
  return prisma.event.create({
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
}

/** Partial update of an event by an admin; the date order is checked against the merged values. */
export async function updateEvent(slug: string, changes: Partial<EventFields>) {
  const event = await getEventBySlug(slug);
  assertDateOrder(changes.startDate ?? event.startDate, changes.endDate ?? event.endDate);
  const data: Partial<EventFields> = {};
  for (const key of ['name', 'location', 'startDate', 'endDate', 'worldRegistryId', 'description'] as const) {
    if (changes[key] !== undefined) (data as Record<string, unknown>)[key] = changes[key] === '' ? null : changes[key];
  }
  return prisma.event.update({ where: { id: event.id }, data });
}

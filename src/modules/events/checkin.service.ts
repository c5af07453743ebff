import QRCode from 'qrcode';
import type { Event, Prisma, PrismaClient } from '../../generated/prisma/client.js';
import { userOf, type Actor } from '../../lib/actor.js';
import type { AuthUser } from '../../lib/auth.js';
import type { Clock } from '../../lib/clock.js';
import { AppError } from '../../lib/errors.js';
import { randomToken } from '../../lib/ids.js';
import { isUniqueViolation } from '../../lib/prisma-errors.js';
import type { Notifier } from '../../realtime/notifier.js';
import type { ActivityLogService } from '../activity-log/activity-log.service.js';
import type { ChatService } from '../chat/chat.service.js';
import type { EventAccess } from './event-access.js';
import type { CheckinInput, QrInput, SlugInput } from './events.schemas.js';
import { eventBriefView } from './events.views.js';

/**
 * Check-in and leave: the event's check-in token and QR code, joining by token and leaving.
 * Owns EventCheckinToken and the writes of EventParticipant (with Event.participantsCount).
 */

/** ChatRoom.type of an event's group room (the chat feature creates it; events.service.ts reads it). */
export const EVENT_ROOM_TYPE = 'event';
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Interactive transactions of check-in and leave are tiny, but a crowd scanning the QR code at
 * once queues them on the connection pool: wait for a connection rather than failing.
 */
const TX_OPTIONS = { maxWait: 15_000, timeout: 15_000 } as const;

export interface CheckinSettings {
  /** refuse check-in outside [startDate - 1 day, endDate + 1 day] (on in production) */
  enforceWindow: boolean;
  /** the front end's base URL: check-in links point there */
  frontendUrl: string;
}

export interface CheckinServiceDeps {
  db: PrismaClient;
  notifier: Notifier;
  audit: ActivityLogService;
  eventAccess: EventAccess;
  clock: Clock;
  settings: CheckinSettings;
  /** the event's group room, created with the first participation (the chat feature owns `ChatRoom`) */
  chat: Pick<ChatService, 'createEventRoom'>;
}

/** The check-in window of an event: from a day before its start to a day after its end. */
export function checkinWindow(event: Pick<Event, 'startDate' | 'endDate'>) {
  return {
    validFrom: new Date(event.startDate.getTime() - DAY_MS),
    validUntil: new Date(event.endDate.getTime() + DAY_MS),
  };
}

export class CheckinService {
  constructor(private readonly deps: CheckinServiceDeps) {}

  /**
   * The check-in block of an event for a caller who may see it (admins and participants; the
   * caller decides): the token, made on the first request that may see it (a write, once per
   * event), its URL and the window.
   */
  async checkinBlock(event: Pick<Event, 'id' | 'startDate' | 'endDate'>, existingToken: string | null) {
    const token = existingToken ?? (await this.ensureToken(event.id));
    return { token, url: this.urlOf(token), ...checkinWindow(event) };
  }

  /** The check-in URL as a QR image. Checks: event 404 → admin or participant, else 403. */
  async getQr(actor: Actor, { slug, format = 'png' }: QrInput) {
    const event = await this.deps.eventAccess.getBySlug(slug);
    if (!(await this.canSeeCheckin(event.id, userOf(actor)))) throw new AppError('CHECKIN_QR_FORBIDDEN');
    const url = this.urlOf(await this.ensureToken(event.id));
    const options = { errorCorrectionLevel: 'M', margin: 2 } as const;
    if (format === 'svg') {
      return { contentType: 'image/svg+xml', body: await QRCode.toString(url, { ...options, type: 'svg' }) };
    }
    return { contentType: 'image/png', body: await QRCode.toBuffer(url, { ...options, type: 'png', width: 512 }) };
  }

  private urlOf(token: string): string {
    return `${this.deps.settings.frontendUrl}/events/checkin/${token}`;
  }

  /** The event's check-in token: created on first request, reused afterwards (also under concurrency). */
  private async ensureToken(eventId: number): Promise<string> {
    const { db } = this.deps;
    const existing = await db.eventCheckinToken.findUnique({ where: { eventId } });
    if (existing) return existing.token;
    try {
      const created = await db.eventCheckinToken.create({ data: { eventId, token: randomToken(24) } });
      return created.token;
    } catch (err) {
      // another request created it first: use theirs
      if (!isUniqueViolation(err)) throw err;
      return (await db.eventCheckinToken.findUniqueOrThrow({ where: { eventId } })).token;
    }
  }

  /** Admins and participants may see the check-in token and QR code. */
  private async canSeeCheckin(eventId: number, user: AuthUser): Promise<boolean> {
    if (user.isAdmin) return true;
    return (await this.deps.eventAccess.findParticipation(eventId, user.id)) !== null;
  }

  /**
   * Check-in by QR token. Checks: token 404 → the window (400, only when enforced) → already a
   * participant (alreadyCheckedIn: true, nothing changes, nothing logged). The unique
   * (userId, eventId) decides races: the participation insert and the counter increment share
   * one transaction, and a concurrent duplicate insert fails with P2002, rolls back (no
   * increment) and answers alreadyCheckedIn. The event's group room is created with ON CONFLICT
   * DO NOTHING in the same transaction, so two first check-ins cannot both create it. A new
   * participation is logged ("checkin").
   */
  async checkin(actor: Actor, { token }: CheckinInput) {
    const user = userOf(actor);
    const row = await this.deps.db.eventCheckinToken.findUnique({
      where: { token: token.slice(0, 100) },
      select: { event: { select: eventBriefView.select } },
    });
    if (!row) throw new AppError('INVALID_CHECKIN_TOKEN');
    const { event } = row;
    this.assertInCheckinWindow(event);
    const result = await this.join(actor, event, user.id);
    if (!result.alreadyCheckedIn) {
      await this.deps.audit.record(actor, { category: 'event', action: 'checkin', resource: `event:${event.slug}` });
    }
    return result;
  }

  private assertInCheckinWindow(event: Pick<Event, 'startDate' | 'endDate'>): void {
    if (!this.deps.settings.enforceWindow) return;
    const { validFrom, validUntil } = checkinWindow(event);
    const now = this.deps.clock.now().getTime();
    if (now < validFrom.getTime() || now > validUntil.getTime()) throw new AppError('CHECKIN_NOT_AVAILABLE');
  }

  private async join<E extends { id: number }>(
    actor: Actor,
    event: E,
    userId: number,
  ): Promise<{ alreadyCheckedIn: boolean; event: E; joinedAt: Date }> {
    const { db, eventAccess } = this.deps;
    const existing = await eventAccess.findParticipation(event.id, userId);
    if (existing) return { alreadyCheckedIn: true, event, joinedAt: existing.joinedAt };
    try {
      const participation = await db.$transaction(async (tx) => {
        const created = await tx.eventParticipant.create({ data: { userId, eventId: event.id } });
        await tx.event.update({ where: { id: event.id }, data: { participantsCount: { increment: 1 } } });
        await this.deps.chat.createEventRoom(actor, { tx, eventId: event.id });
        return created;
      }, TX_OPTIONS);
      return { alreadyCheckedIn: false, event, joinedAt: participation.joinedAt };
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      const participation = await eventAccess.findParticipation(event.id, userId);
      // the other insert was rolled back or the user left in between: try once more from the start
      if (!participation) return this.join(actor, event, userId);
      return { alreadyCheckedIn: true, event, joinedAt: participation.joinedAt };
    }
  }

  /**
   * Leave: event 404 → not a participant 400. The participation row goes (heats by cascade) and
   * the counter drops, in one transaction; then the user's sockets leave the event room and the
   * leave is logged.
   */
  async leave(actor: Actor, { slug }: SlugInput): Promise<void> {
    const userId = userOf(actor).id;
    const event = await this.deps.eventAccess.getBySlug(slug);
    await this.deps.db.$transaction(async (tx) => {
      const { count } = await tx.eventParticipant.deleteMany({ where: { userId, eventId: event.id } });
      if (count === 0) throw new AppError('NOT_JOINED');
      await tx.event.update({ where: { id: event.id }, data: { participantsCount: { decrement: 1 } } });
    }, TX_OPTIONS);
    await this.deps.notifier.removeUserFromEventRoom(userId, event.id);
    await this.deps.audit.record(actor, { category: 'event', action: 'leave', resource: `event:${event.slug}` });
  }

  /**
   * Event settings (src/modules/event-settings): changes the user's own participation settings
   * (competitor number, recorder opt-out); 403 NOT_PARTICIPANT when the user does not participate.
   */
  async updateParticipation(
    _actor: Actor,
    input: {
      eventId: number;
      userId: number;
      settings: Pick<Prisma.EventParticipantUpdateManyMutationInput, 'competitorNumber' | 'recorderOptOut'>;
    },
  ): Promise<void> {
    const { eventId, userId, settings } = input;
    const { count } = await this.deps.db.eventParticipant.updateMany({ where: { eventId, userId }, data: settings });
    if (count === 0) throw new AppError('NOT_PARTICIPANT');
  }
}

import type { Prisma, PrismaClient } from '../../generated/prisma/client.js';
import { AppError } from '../../lib/errors.js';

type Db = Prisma.TransactionClient | PrismaClient;

/**
 * Event lookups and the participation rule shared by every event-scoped feature (events, chat,
 * heats, settings, matches, matching). Each method takes an optional transaction client.
 */
export class EventAccess {
  constructor(private readonly db: PrismaClient) {}

  /** The event of a slug, or 404 "Event not found". */
  async getBySlug(slug: string, db: Db = this.db) {
    const event = await db.event.findUnique({ where: { slug } });
    if (!event) throw new AppError('EVENT_NOT_FOUND');
    return event;
  }

  findParticipation(eventId: number, userId: number, db: Db = this.db) {
    return db.eventParticipant.findUnique({ where: { userId_eventId: { userId, eventId } } });
  }

  /** 403 "You must be a participant of this event" unless the user participates. */
  async assertParticipant(eventId: number, userId: number, db: Db = this.db) {
    const participation = await this.findParticipation(eventId, userId, db);
    if (!participation) throw new AppError('NOT_PARTICIPANT');
    return participation;
  }
}

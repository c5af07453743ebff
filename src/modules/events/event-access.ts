import type { Prisma, PrismaClient } from '../../generated/prisma/client.js';
import { AppError } from '../../lib/errors.js';

type Db = Prisma.TransactionClient | PrismaClient;

/**
 * Event lookups and the participation rule shared by every event-scoped feature (events, chat,
 * heats, settings, matches, matching), and the writes the matching feature makes to the events
 * feature's tables (the run stamp, the no-show mark, a participant's recording preferences).
 * Each method takes an optional transaction client.
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

  /** Matching (a run's end, in its transaction): when the event's suggestions were last computed. */
  async markMatchingRun(eventId: number, finishedAt: Date, db: Db = this.db): Promise<void> {
    await db.event.update({ where: { id: eventId }, data: { matchingRunAt: finishedAt } });
  }

  /** Matching (no-shows): sets or clears a participant's absence mark; answers how many rows changed (0: not a participant). */
  async setAbsent(eventId: number, userId: number, absentAt: Date | null, db: Db = this.db): Promise<number> {
    const { count } = await db.eventParticipant.updateMany({ where: { eventId, userId }, data: { absentAt } });
    return count;
  }

  /** Matching (a participant's recording preferences): the participation after the change, or undefined when none. */
  async setRecordingPreferences(
    eventId: number,
    userId: number,
    data: Pick<Prisma.EventParticipantUpdateInput, 'maxRecordings' | 'unavailable'>,
    db: Db = this.db,
  ) {
    const rows = await db.eventParticipant.updateManyAndReturn({ where: { eventId, userId }, data });
    return rows[0];
  }

  /** 403 "You must be a participant of this event" unless the user participates. */
  async assertParticipant(eventId: number, userId: number, db: Db = this.db) {
    const participation = await this.findParticipation(eventId, userId, db);
    if (!participation) throw new AppError('NOT_PARTICIPANT');
    return participation;
  }
}

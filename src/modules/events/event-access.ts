import type { Prisma } from '../../generated/prisma/client.js';
import { AppError } from '../../lib/errors.js';
import { prisma } from '../../lib/prisma.js';

type Db = Prisma.TransactionClient | typeof prisma;

/** The event of a slug, or 404 "Event not found". Shared by every event-scoped route. */
export async function getEventBySlug(slug: string, db: Db = prisma) {
  const event = await db.event.findUnique({ where: { slug } });
  if (!event) throw new AppError('EVENT_NOT_FOUND');
  return event;
}

export async function findParticipation(eventId: number, userId: number, db: Db = prisma) {
  return db.eventParticipant.findUnique({ where: { userId_eventId: { userId, eventId } } });
}

/** 403 "You must be a participant of this event" unless the user participates. */
export async function assertParticipant(eventId: number, userId: number, db: Db = prisma) {
  const participation = await findParticipation(eventId, userId, db);
  if (!participation) throw new AppError('NOT_PARTICIPANT');
  return participation;
}

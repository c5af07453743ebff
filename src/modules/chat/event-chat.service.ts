import { forbidden, Messages, notFound } from '../../lib/errors.js';
import { prisma } from '../../lib/prisma.js';
import { isUniqueViolation } from '../../lib/prisma-errors.js';
import { assertParticipant, getEventBySlug } from '../events/event-access.js';
import { listRoomMessages } from './chat.service.js';

/**
 * The event group chat (participants only). Order of checks, HTTP and socket alike
 * (DECISIONS.md "Further decisions"): event 404 → participant 403 → room 404.
 */
export const EVENT_ROOM_TYPE = 'event';

export function findEventRoom(eventId: number) {
  return prisma.chatRoom.findUnique({ where: { eventId_type: { eventId, type: EVENT_ROOM_TYPE } } });
}

/** The event room, created when missing (a concurrent creation wins: P2002 → read theirs). */
export async function ensureEventRoom(eventId: number) {
  const existing = await findEventRoom(eventId);
  if (existing) return existing;
  try {
    return await prisma.chatRoom.create({ data: { eventId, type: EVENT_ROOM_TYPE } });
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    return prisma.chatRoom.findUniqueOrThrow({ where: { eventId_type: { eventId, type: EVENT_ROOM_TYPE } } });
  }
}

/** GET /events/:slug/messages: a page of the event room's history. */
export async function listEventMessages(slug: string, userId: number, page: { before?: number; limit?: number }) {
  const event = await getEventBySlug(slug);
  await assertParticipant(event.id, userId);
  const room = await findEventRoom(event.id);
  if (!room) throw notFound(Messages.chatRoomNotFound, 'CHAT_ROOM_NOT_FOUND');
  return listRoomMessages(room.id, page);
}

/** join_event_room: the event and its room (created if missing) for a participant. */
export async function openEventRoom(slug: unknown, userId: number) {
  if (typeof slug !== 'string' || slug.length === 0 || slug.length > 50) {
    throw notFound(Messages.eventNotFound, 'EVENT_NOT_FOUND');
  }
  const event = await getEventBySlug(slug);
  await assertParticipant(event.id, userId);
  const room = await ensureEventRoom(event.id);
  return { event, room };
}

/** Re-checked on every send: a user who left the event cannot post. */
export async function isParticipant(eventId: number, userId: number): Promise<boolean> {
  try {
    await assertParticipant(eventId, userId);
    return true;
  } catch {
    return false;
  }
}

export const notParticipantError = () => forbidden(Messages.notParticipantMust, 'NOT_PARTICIPANT');

import { AppError } from '../../lib/errors.js';
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
  if (!room) throw new AppError('CHAT_ROOM_NOT_FOUND');
  return listRoomMessages(room.id, page);
}

/** join_event_room: the event and its room (created if missing) for a participant. */
export async function openEventRoom(slug: unknown, userId: number) {
  if (typeof slug !== 'string' || slug.length === 0 || slug.length > 50) {
    throw new AppError('EVENT_NOT_FOUND');
  }
  const event = await getEventBySlug(slug);
  await assertParticipant(event.id, userId);
  const room = await ensureEventRoom(event.id);
  return { event, room };
}

export const notParticipantError = () => new AppError('NOT_PARTICIPANT');

export interface SenderContext {
  username: string;
  avatar: string;
  emailVerified: boolean;
  participant: boolean;
  roomId: number | null;
}

/**
 * Everything send_event_message checks, read in one round trip: the author (verified e-mail,
 * name, avatar), whether the author still participates, and the event room.
 */
export async function senderContext(eventId: number, userId: number): Promise<SenderContext | undefined> {
  const rows = await prisma.$queryRaw<SenderContext[]>`
    SELECT u.username, u.avatar, u."emailVerified", (p.id IS NOT NULL) AS participant, r.id AS "roomId"
    FROM "User" u
    LEFT JOIN "EventParticipant" p ON p."userId" = u.id AND p."eventId" = ${eventId}
    LEFT JOIN "ChatRoom" r ON r."eventId" = ${eventId} AND r.type = ${EVENT_ROOM_TYPE}
    WHERE u.id = ${userId}`;
  return rows[0];
}

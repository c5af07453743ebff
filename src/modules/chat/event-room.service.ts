import type { PrismaClient } from '../../generated/prisma/client.js';
import { userOf, type Actor } from '../../lib/actor.js';
import { BatchedReads } from '../../lib/batched-reads.js';
import { AppError } from '../../lib/errors.js';
import { isUniqueViolation } from '../../lib/prisma-errors.js';
import { sql, type SqlReader } from '../../lib/sql.js';
import type { ChatMessagePayload } from '../../realtime/types.js';
import { notBlockedSql } from '../moderation/blocks.views.js';
import { messagesFromJson, pageSize, type MessageJson, type MessagePage } from './chat.service.js';
import { messageView } from './chat.views.js';
import { DEFAULT_PAGE_SIZE, type JoinEventRoomInput } from './chat.schemas.js';

/*
 * The event group chat's room: joining it (join_event_room: the room, created when missing, and
 * the latest page) and reading its history (GET /events/:slug/messages). Sending is
 * event-messages.service.ts'. Participants only; order of checks, HTTP and socket alike
 * (tests/chat/event-messages-http.test.ts): event 404 → participant 403 → room 404.
 */

export const EVENT_ROOM_TYPE = 'event';

/** Key of one caller's room opening: user id and slug (a slug holds no NUL). */
const openingKey = (slug: string, userId: number) => `${userId}\u0000${slug}`;
const parseOpeningKey = (key: string) => {
  const at = key.indexOf('\u0000');
  return { userId: Number(key.slice(0, at)), slug: key.slice(at + 1) };
};

/** What the event room uses (built by src/container.ts). */
export interface EventRoomDeps {
  db: PrismaClient;
  sql: SqlReader;
}

interface EventRoomPageRow {
  eventId: number;
  isParticipant: boolean;
  roomId: number | null;
  /** null unless the caller participates */
  messages: MessageJson[] | null;
}

/**
 * The event of a slug, whether the caller participates, its group room, and (for a
 * participant) a page of the room's messages with their authors, oldest first: one statement
 * for the history reads, which a weekend's phones poll. Indexes: Event(slug), the unique
 * EventParticipant(userId, eventId), ChatRoom(eventId, type), Message(roomId, id) read backwards.
 * Messages removed by an admin and messages of users in a blocked pair with the caller are
 * filtered before the limit (a page holds up to `limit` visible messages).
 * $1 slug, $2 caller, $3 page size, $4 `before` (only in the second form).
 */
const roomPage = (name: string, before: string) =>
  sql(
    name,
    `SELECT e.id AS "eventId", (me.id IS NOT NULL) AS "isParticipant", r.id AS "roomId",
            CASE WHEN me.id IS NOT NULL THEN (
              SELECT coalesce(json_agg(${messageView.json()} ORDER BY m.id), '[]'::json)
              FROM (SELECT * FROM "Message" WHERE "roomId" = r.id AND "deletedAt" IS NULL
                      AND ${notBlockedSql('"Message"."userId"', '$2::int')} ${before}
                    ORDER BY id DESC LIMIT $3) m
              LEFT JOIN "User" u ON u.id = m."userId")
            END AS messages
     FROM "Event" e
     LEFT JOIN "EventParticipant" me ON me."eventId" = e.id AND me."userId" = $2
     LEFT JOIN "ChatRoom" r ON r."eventId" = e.id AND r.type = '${EVENT_ROOM_TYPE}'
     WHERE e.slug = $1`,
    { perCaller: 2 },
  );
const latestPage = roomPage('event_chat_page', '');
const pageBefore = roomPage('event_chat_page_before', 'AND id < $4');

/**
 * join_event_room for many callers at once (a reconnect storm): the event of a slug, which of
 * the callers participate, its group room and the room's latest page of visible messages
 * (removed ones left out), the same for every participant; and, only for callers in a blocked
 * pair with anyone, their own page without the messages of the users they are blocked with
 * (filtered before the limit, as the HTTP history is). $1 slug, $2 callers (int[]), $3 page size.
 */
const roomOpening = sql(
  'event_chat_opening',
  `SELECT e.id AS "eventId", r.id AS "roomId",
          ARRAY(SELECT p."userId" FROM "EventParticipant" p WHERE p."eventId" = e.id AND p."userId" = ANY($2::int[])) AS participants,
          (SELECT coalesce(json_agg(${messageView.json()} ORDER BY m.id), '[]'::json)
           FROM (SELECT * FROM "Message" WHERE "roomId" = r.id AND "deletedAt" IS NULL ORDER BY id DESC LIMIT $3) m
           LEFT JOIN "User" u ON u.id = m."userId") AS messages,
          (SELECT json_object_agg(c.uid, (
             SELECT coalesce(json_agg(${messageView.json()} ORDER BY m.id), '[]'::json)
             FROM (SELECT * FROM "Message" WHERE "roomId" = r.id AND "deletedAt" IS NULL
                     AND ${notBlockedSql('"Message"."userId"', 'c.uid')}
                   ORDER BY id DESC LIMIT $3) m
             LEFT JOIN "User" u ON u.id = m."userId"))
           FROM unnest($2::int[]) AS c(uid)
           WHERE EXISTS (SELECT 1 FROM "UserBlock" b WHERE b."blockerId" = c.uid OR b."blockedId" = c.uid)) AS "ownMessages"
   FROM "Event" e
   LEFT JOIN "ChatRoom" r ON r."eventId" = e.id AND r.type = '${EVENT_ROOM_TYPE}'
   WHERE e.slug = $1`,
);

interface RoomOpeningRow {
  eventId: number;
  roomId: number | null;
  participants: number[];
  messages: MessageJson[];
  /** per caller in a blocked pair (keys are user ids as text): that caller's own page */
  ownMessages: Record<string, MessageJson[]> | null;
}

/** What one caller learns from a batched room opening. */
interface RoomOpening {
  eventId: number;
  roomId: number | null;
  isParticipant: boolean;
  messages: ChatMessagePayload[];
}

/** The event room of a slug for its participants: the join's opening and the history pages. */
export class EventRoomService {
  /** join_event_room reads of callers arriving together, one statement per slug (see openRoom) */
  private readonly openings: BatchedReads<string, RoomOpening>;

  constructor(private readonly deps: EventRoomDeps) {
    this.openings = new BatchedReads((keys) => this.readOpenings(keys));
  }

  /** GET /events/:slug/messages: a page of the event room's history; event 404 → participant 403 → room 404. One statement. */
  async listMessages(actor: Actor, page: MessagePage & { slug: string }) {
    const limit = pageSize(page);
    const { roomId, messages } = await this.readRoomPage(page.slug, userOf(actor).id, limit, page.before);
    if (roomId === null) throw new AppError('CHAT_ROOM_NOT_FOUND');
    return { messages, hasMore: messages.length === limit };
  }

  /**
   * join_event_room: the event, its room (created if missing) and the last 20 messages, oldest
   * first (the join throttle, 429 ROOM_JOIN_THROTTLED, runs before, in src/realtime/io.ts).
   * Checks (after the payload's, joinEventRoomInput in chat.schemas.ts: a slug of 1-50
   * characters, else 404): event 404 → participant 403. One statement for the callers joining
   * together (readOpenings), and a write only for an event whose room does not exist yet.
   */
  async openRoom(actor: Actor, input: JoinEventRoomInput) {
    const { slug } = input;
    const userId = userOf(actor).id;
    const opening = await this.openings.load(openingKey(slug, userId));
    if (!opening) throw new AppError('EVENT_NOT_FOUND');
    if (!opening.isParticipant) throw new AppError('NOT_PARTICIPANT');
    const { eventId, roomId, messages } = opening;
    const room = roomId === null ? await this.ensureRoom(eventId) : { id: roomId };
    return { event: { id: eventId, slug }, room: { id: room.id }, history: messages };
  }

  /**
   * The room openings of callers that joined together: one statement per slug (each caller is
   * read by a statement sent after it asked, so a participation that just ended is seen). The
   * history is shared by the callers of a slug; each gets its own copy of the payload objects.
   */
  private async readOpenings(keys: string[]): Promise<Map<string, RoomOpening>> {
    const bySlug = new Map<string, number[]>();
    for (const key of keys) {
      const { slug, userId } = parseOpeningKey(key);
      const userIds = bySlug.get(slug);
      if (userIds) userIds.push(userId);
      else bySlug.set(slug, [userId]);
    }
    const result = new Map<string, RoomOpening>();
    await Promise.all(
      [...bySlug].map(async ([slug, userIds]) => {
        const [row] = await this.deps.sql.rows<RoomOpeningRow>(roomOpening, [slug, userIds, DEFAULT_PAGE_SIZE]);
        if (!row) return;
        const participants = new Set(row.participants);
        for (const userId of userIds) {
          const isParticipant = participants.has(userId);
          result.set(openingKey(slug, userId), {
            eventId: row.eventId,
            roomId: row.roomId,
            isParticipant,
            messages: isParticipant ? messagesFromJson(row.ownMessages?.[String(userId)] ?? row.messages) : [],
          });
        }
      }),
    );
    return result;
  }

  /** The room page of an event for a participant: event 404 → participant 403. */
  private async readRoomPage(slug: string, userId: number, limit: number, before?: number) {
    const [row] =
      before === undefined
        ? await this.deps.sql.rows<EventRoomPageRow>(latestPage, [slug, userId, limit])
        : await this.deps.sql.rows<EventRoomPageRow>(pageBefore, [slug, userId, limit, before]);
    if (!row) throw new AppError('EVENT_NOT_FOUND');
    if (!row.isParticipant) throw new AppError('NOT_PARTICIPANT');
    return { eventId: row.eventId, roomId: row.roomId, messages: messagesFromJson(row.messages ?? []) };
  }

  private findRoom(eventId: number) {
    return this.deps.db.chatRoom.findUnique({ where: { eventId_type: { eventId, type: EVENT_ROOM_TYPE } } });
  }

  /** The event room, created when missing (a concurrent creation wins: P2002 → read theirs). */
  private async ensureRoom(eventId: number) {
    const existing = await this.findRoom(eventId);
    if (existing) return existing;
    try {
      return await this.deps.db.chatRoom.create({ data: { eventId, type: EVENT_ROOM_TYPE } });
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      return this.deps.db.chatRoom.findUniqueOrThrow({ where: { eventId_type: { eventId, type: EVENT_ROOM_TYPE } } });
    }
  }
}

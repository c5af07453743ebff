import type { Prisma, PrismaClient } from '../../generated/prisma/client.js';
import type { Actor } from '../../lib/actor.js';
import { AppError } from '../../lib/errors.js';
import { toDate } from '../../lib/sql.js';
import { DELETED_USER_SUMMARY } from '../../lib/user-summary.js';
import type { ChatMessagePayload } from '../../realtime/types.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, validateContent } from './chat.schemas.js';
import { messageView } from './chat.views.js';

/*
 * Chat core shared by the event group chat and the private chat of a match: storage and
 * cursor paging of a room's messages (the content rule is chat.schemas.ts').
 */

/** The text of a message whose author deleted the account. */
export const DELETED_MESSAGE_CONTENT = '[deleted]';
/** The duplicate filter's window: the same text again in the same room within it is refused. */
export const DUPLICATE_WINDOW_SECONDS = 30;

/** ChatRoom.type of an event's group room. */
const EVENT_ROOM = 'event';
/** Namespace of the advisory lock of one user's copies of one text in one room (the duplicate check). */
const LOCK_AUTHOR_ROOM = 6004;
/** The characters String.prototype.trim removes (WhiteSpace and LineTerminator of ECMAScript). */
const JS_WHITESPACE =
  '\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff';

/** A message's columns of the message view and its author (null once the author deleted the account). */
const messageSelect = { ...messageView.select, user: { select: { username: true, avatar: true } } } as const;

type MessageRow = Prisma.MessageGetPayload<{ select: typeof messageSelect }>;

/** A page request of a room's history (validated by chat.schemas.ts). */
export interface MessagePage {
  before?: number;
  limit?: number;
}

/** The author of a message, whose username and avatar are already known. */
export interface MessageAuthor {
  id: number;
  username: string;
  avatar: string;
}

/** A message as `messageView.json()` renders it in SQL (createdAt as text). */
export type MessageJson = Omit<ChatMessagePayload, 'createdAt'> & { createdAt: string };

/** Payloads from `messageView.json()` objects: timestamps become Dates again. */
export const messagesFromJson = (rows: MessageJson[]): ChatMessagePayload[] =>
  rows.map((m) => ({ ...m, createdAt: toDate(m.createdAt) }));

/** The page size of a request: `limit` within 1..MAX_PAGE_SIZE, DEFAULT_PAGE_SIZE when absent. */
export const pageSize = (page: MessagePage) => Math.min(Math.max(page.limit ?? DEFAULT_PAGE_SIZE, 1), MAX_PAGE_SIZE);

/** A stored message with its author as sent to clients (history pages and broadcasts). */
export function toMessagePayload(m: MessageRow): ChatMessagePayload {
  return {
    id: m.id,
    roomId: m.roomId,
    userId: m.userId,
    username: m.user?.username ?? DELETED_USER_SUMMARY.username,
    avatar: m.user?.avatar ?? null,
    content: m.content,
    type: m.type,
    createdAt: m.createdAt,
  };
}

/** A message to store: the room, its author (name and avatar already known) and the raw content. */
export interface NewMessage {
  roomId: number;
  author: MessageAuthor;
  content: unknown;
  /** runs first inside the message's transaction (e.g. a block check under a lock) */
  guard?: (tx: Prisma.TransactionClient) => Promise<void>;
}

/** What the chat core uses (built by src/container.ts). */
export interface ChatDeps {
  db: PrismaClient;
}

/**
 * Storage and paging of chat rooms' messages (event rooms and private match rooms). The chat
 * feature owns the tables `Message` and `ChatRoom` (event rooms: here and event-room.service.ts).
 * Other features write them through the methods below (createEventRoom, createPrivateRoom,
 * removeMessage, anonymiseMessagesOf).
 */
export class ChatService {
  constructor(private readonly deps: ChatDeps) {}

  private get db(): PrismaClient {
    return this.deps.db;
  }

  /**
   * A page of a room's history (tests/chat/event-messages-http.test.ts): with `before`, only ids
   * lower than it; the newest `limit` are selected (index Message(roomId, id)), then returned
   * oldest first. `hasMore` is true when the number returned equals `limit`. Messages removed by
   * an admin are left out.
   */
  async listRoomMessages(
    _actor: Actor,
    page: MessagePage & { roomId: number },
  ): Promise<{ messages: ChatMessagePayload[]; hasMore: boolean }> {
    const { roomId } = page;
    const limit = pageSize(page);
    const rows = await this.db.message.findMany({
      where: { roomId, deletedAt: null, ...(page.before !== undefined ? { id: { lt: page.before } } : {}) },
      orderBy: { id: 'desc' },
      take: limit,
      select: messageSelect,
    });
    return { messages: rows.reverse().map(toMessagePayload), hasMore: rows.length === limit };
  }

  /**
   * Stores a message of an author whose username and avatar are already known (the socket's
   * user): the content rule (validateContent) first, then, in one transaction, the caller's
   * `guard` if any (e.g. a block check under a lock), and the INSERT unless it is a duplicate;
   * no read-back of the author (the hot path of the chats).
   *
   * Duplicate filter: content that, trimmed and compared case-insensitively, equals a message the
   * same author stored in the same room less than DUPLICATE_WINDOW_SECONDS earlier → 409
   * DUPLICATE_MESSAGE, nothing stored. Only stored messages open the window. The transaction
   * first takes an advisory lock of (author, room, normalised text), so the conditional INSERT, whose snapshot is
   * taken after the lock, sees any copy committed by a concurrent send: two copies sent at the
   * same instant cannot both be stored. Without a guard it is a batch (no interactive
   * transaction): BEGIN, the lock, the INSERT, COMMIT.
   */
  async createMessage(_actor: Actor, input: NewMessage): Promise<ChatMessagePayload> {
    const { roomId, author, content, guard } = input;
    const text = validateContent(content);
    // only copies of the same text wait for each other: different messages of a user run side by side
    const lockKey = `${author.id}:${roomId}:${text.trim().toLowerCase()}`;
    const lock = (db: Prisma.TransactionClient | PrismaClient) =>
      db.$executeRaw`SELECT pg_advisory_xact_lock(${LOCK_AUTHOR_ROOM}::int, hashtext(${lockKey}))`;
    // index Message(userId, roomId, createdAt); btrim with JavaScript's whitespace set, as String.prototype.trim
    const insertUnlessDuplicate = (db: Prisma.TransactionClient | PrismaClient) =>
      db.$queryRaw<{ id: number; type: string; createdAt: Date }[]>`
        INSERT INTO "Message" ("roomId", "userId", content, type)
        SELECT ${roomId}::int, ${author.id}::int, ${text}::text, 'text'
        WHERE NOT EXISTS (
          SELECT 1 FROM "Message"
          WHERE "userId" = ${author.id}::int AND "roomId" = ${roomId}::int
            AND "createdAt" > clock_timestamp() - make_interval(secs => ${DUPLICATE_WINDOW_SECONDS}::int)
            AND lower(btrim(content, ${JS_WHITESPACE}::text)) = lower(btrim(${text}::text, ${JS_WHITESPACE}::text)))
        RETURNING id, type, "createdAt"`;
    const inserted = guard
      ? await this.db.$transaction(async (tx) => {
          await guard(tx);
          await lock(tx);
          return insertUnlessDuplicate(tx);
        })
      : (await this.db.$transaction([lock(this.db), insertUnlessDuplicate(this.db)]))[1];
    const row = inserted[0];
    if (!row) throw new AppError('DUPLICATE_MESSAGE');
    return {
      id: row.id,
      roomId,
      userId: author.id,
      username: author.username,
      avatar: author.avatar,
      content: text,
      type: row.type,
      createdAt: row.createdAt,
    };
  }

  /**
   * The data export (src/modules/privacy): every message the user wrote, event rooms and private
   * rooms, oldest first, with its room (`event` of a private room is its match's event).
   */
  async messagesOfUser(_actor: Actor, input: { userId: number }) {
    const { userId } = input;
    const eventRef = { select: { id: true, slug: true, name: true } } as const;
    const rows = await this.db.message.findMany({
      where: { userId },
      orderBy: { id: 'asc' },
      select: {
        id: true,
        content: true,
        createdAt: true,
        room: { select: { id: true, type: true, event: eventRef, match: { select: { slug: true, event: eventRef } } } },
      },
    });
    return rows.map(({ room, ...message }) => ({
      id: message.id,
      room: {
        id: room.id,
        type: room.type,
        event: room.event ?? room.match?.event ?? null,
        matchSlug: room.match?.slug ?? null,
      },
      content: message.content,
      createdAt: message.createdAt,
    }));
  }

  /**
   * Account deletion (src/modules/privacy), inside the caller's transaction (`input.tx`): the user's messages
   * that stay (event rooms; private rooms go with their matches) keep their id, room and time
   * but lose their author and text: shown as the placeholder "deleted-user" with "[deleted]".
   */
  async anonymiseMessagesOf(_actor: Actor, input: { tx: Prisma.TransactionClient; userId: number }): Promise<number> {
    const { tx, userId } = input;
    const { count } = await tx.message.updateMany({
      where: { userId },
      data: { userId: null, content: DELETED_MESSAGE_CONTENT },
    });
    return count;
  }

  /**
   * Check-in (src/modules/events), inside the caller's transaction (`input.tx`): the event's
   * group room, created once (a second call, or a concurrent one, leaves the existing room).
   */
  async createEventRoom(_actor: Actor, input: { tx: Prisma.TransactionClient; eventId: number }): Promise<void> {
    const { tx, eventId } = input;
    await tx.chatRoom.createMany({ data: [{ eventId, type: EVENT_ROOM }], skipDuplicates: true });
  }

  /**
   * Matches (src/modules/matches), inside the caller's transaction: the private room of an
   * accepted match, created once (a room belongs to a match, never to an event: ChatRoom_owner_check).
   */
  async createPrivateRoom(_actor: Actor, input: { tx: Prisma.TransactionClient; matchId: number }): Promise<void> {
    const { tx, matchId } = input;
    await tx.chatRoom.upsert({ where: { matchId }, update: {}, create: { type: 'private', matchId, eventId: null } });
  }

  /**
   * Moderation (src/modules/moderation): marks a message removed (deletedAt, by a conditional
   * update, so it happens once) and answers its room and author, or null when the id is unknown
   * or the message was already removed.
   */
  async removeMessage(
    _actor: Actor,
    input: { id: number; at: Date },
  ): Promise<{ roomId: number; userId: number | null; eventId: number | null; matchId: number | null } | null> {
    const { id, at } = input;
    const { count } = await this.db.message.updateMany({ where: { id, deletedAt: null }, data: { deletedAt: at } });
    if (count === 0) return null;
    const message = await this.db.message.findUnique({
      where: { id },
      select: { roomId: true, userId: true, room: { select: { eventId: true, matchId: true } } },
    });
    return message && { roomId: message.roomId, userId: message.userId, ...message.room };
  }
}

import { Prisma, type PrismaClient } from '../../generated/prisma/client.js';
import type { Actor } from '../../lib/actor.js';
import type { Clock } from '../../lib/clock.js';
import { AppError } from '../../lib/errors.js';
import type { FloodLimiter } from '../../lib/flood-limit.js';
import type { Metrics } from '../../lib/metrics.js';
import type { Notifier } from '../../realtime/notifier.js';
import type { ChatMessagePayload } from '../../realtime/types.js';
import type { ActivityLogService } from '../activity-log/activity-log.service.js';
import { blockedPeersSql } from '../moderation/blocks.views.js';
import { validateContent } from './chat.schemas.js';
import type { ChatService } from './chat.service.js';
import { EVENT_ROOM_TYPE } from './event-room.service.js';

/*
 * Sending to the event group chat (send_event_message); joining the room and its history are
 * event-room.service.ts'.
 */

/** A flood is logged once per user and minute, not once per refused message. */
const FLOOD_LOG_INTERVAL_MS = 60_000;

export interface EventMessagesSettings {
  /** sending needs a verified e-mail address (REQUIRE_EMAIL_VERIFICATION) */
  requireEmailVerification: boolean;
}

/** What sending to the event chat uses (built by src/container.ts). */
export interface EventMessagesDeps {
  db: PrismaClient;
  chat: Pick<ChatService, 'createMessage'>;
  /** the chat flood limiter, shared with the private chat */
  flood: FloodLimiter;
  audit: ActivityLogService;
  notifier: Notifier;
  clock: Clock;
  metrics: Metrics;
  settings: EventMessagesSettings;
}

/** The event room a socket joined (kept by the socket layer). */
export interface JoinedEventRoom {
  eventId: number;
  slug: string;
}

interface SenderContext {
  username: string;
  avatar: string;
  emailVerified: boolean;
  participant: boolean;
  roomId: number | null;
  /** users in a blocked pair with the sender: they do not receive the message */
  blockedPeers: number[];
}

/** Messages sent to an event's group chat (participants only). */
export class EventMessagesService {
  private readonly floodLoggedAt = new Map<number, number>();

  constructor(private readonly deps: EventMessagesDeps) {}

  /**
   * send_event_message: stores a message in the joined event's room; the caller broadcasts it
   * to the event room except to `hiddenFrom` (the users in a blocked pair with the sender).
   * Checks in order (the socket parsed the payload with eventMessageInput first, so content
   * errors come before the room): a room joined (400 NOT_IN_ROOM) → content 1-2000 characters
   * after trim (400) → flood limit (429; logged once per user and minute) → the user still exists (401)
   * → verified e-mail from the database when required (403) → still a participant (403; the
   * user's sockets leave the room) → the room exists (404) → not a duplicate (409
   * DUPLICATE_MESSAGE, the chat core's rule).
   */
  async postMessage(
    actor: Actor,
    input: { joined: JoinedEventRoom | undefined; content: unknown },
  ): Promise<{ eventId: number; message: ChatMessagePayload; hiddenFrom: number[] }> {
    const { joined, content } = input;
    if (actor.userId === null) throw new AppError('AUTH_REQUIRED');
    const { userId } = actor;
    if (!joined) throw new AppError('NOT_IN_ROOM');
    const text = validateContent(content);
    if (!(await this.deps.flood.take(userId))) {
      await this.recordFlood(actor, userId, joined);
      throw new AppError('CHAT_FLOOD');
    }
    const ctx = await this.senderContext(joined.eventId, userId);
    if (!ctx) throw new AppError('INVALID_TOKEN'); // user deleted meanwhile
    if (this.deps.settings.requireEmailVerification && !ctx.emailVerified) throw new AppError('EMAIL_NOT_VERIFIED');
    if (!ctx.participant) {
      await this.deps.notifier.removeUserFromEventRoom(userId, joined.eventId);
      throw new AppError('NOT_PARTICIPANT');
    }
    if (ctx.roomId === null) throw new AppError('CHAT_ROOM_NOT_FOUND');
    const author = { id: userId, username: ctx.username, avatar: ctx.avatar };
    const message = await this.deps.chat.createMessage(actor, { roomId: ctx.roomId, author, content: text });
    this.deps.metrics.chatMessageStored('event');
    return { eventId: joined.eventId, message, hiddenFrom: ctx.blockedPeers };
  }

  private async recordFlood(actor: Actor, userId: number, joined: JoinedEventRoom): Promise<void> {
    const now = this.deps.clock.now().getTime();
    if (now - (this.floodLoggedAt.get(userId) ?? -Infinity) < FLOOD_LOG_INTERVAL_MS) return;
    this.floodLoggedAt.set(userId, now);
    await this.deps.audit.record(actor, {
      category: 'chat',
      action: 'chat_flood_limited',
      success: false,
      resource: `event:${joined.slug}`,
    });
  }

  /**
   * Everything postMessage checks, read in one round trip: the author (verified e-mail, name,
   * avatar), whether the author still participates, and the event room.
   */
  private async senderContext(eventId: number, userId: number): Promise<SenderContext | undefined> {
    const rows = await this.deps.db.$queryRaw<SenderContext[]>`
      SELECT u.username, u.avatar, u."emailVerified", (p.id IS NOT NULL) AS participant, r.id AS "roomId",
        ${Prisma.raw(blockedPeersSql('u.id'))} AS "blockedPeers"
      FROM "User" u
      LEFT JOIN "EventParticipant" p ON p."userId" = u.id AND p."eventId" = ${eventId}
      LEFT JOIN "ChatRoom" r ON r."eventId" = ${eventId} AND r.type = ${EVENT_ROOM_TYPE}
      WHERE u.id = ${userId}`;
    return rows[0];
  }
}

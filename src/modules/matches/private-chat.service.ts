import type { PrismaClient } from '../../generated/prisma/client.js';
import { userOf, type Actor } from '../../lib/actor.js';
import { AppError } from '../../lib/errors.js';
import type { FloodLimiter } from '../../lib/flood-limit.js';
import type { Metrics } from '../../lib/metrics.js';
import { isForeignKeyViolation } from '../../lib/prisma-errors.js';
import { rooms, type ChatMessagePayload, type PrivateMessagePayload } from '../../realtime/types.js';
import type { ChatService } from '../chat/chat.service.js';
import { isBlockedPair, lockUserPair } from '../moderation/blocks.views.js';
import { findMemberMatch, isMember, OPEN_STATUSES, type Tx } from './match-records.js';
import type { MatchMessagesInput, PrivateMessageInput } from './matches.schemas.js';

/** join_private_room answers the last 20 messages. */
const JOIN_HISTORY = 20;

/** The chat core's content rule, message writer and history reader (src/modules/chat/chat.service.ts). */
export interface MatchChat extends Pick<ChatService, 'createMessage' | 'listRoomMessages'> {
  validateContent(content: unknown): string;
}

/** What the private chat uses (built by src/container.ts). */
export interface PrivateChatDeps {
  db: PrismaClient;
  chat: MatchChat;
  /** the chat flood limiter, shared with the event chat */
  chatFlood: FloodLimiter;
  metrics: Metrics;
  settings: { requireEmailVerification: boolean };
}

export interface PrivateRoomInput {
  matchId: number;
  /** puts the caller's socket into the match room (before the history is read) */
  enter: (room: string) => Promise<void> | void;
}

/**
 * The private chat of an accepted (or completed) match, for its two members only: history
 * pages, opening the room on a socket, sending a message. Reads Match; writes messages through
 * the chat core (the chat feature owns Message).
 */
export class PrivateChatService {
  constructor(private readonly deps: PrivateChatDeps) {}

  /** A page of the private chat history: members only (404); a pending match has no room yet: empty page. */
  async listMessages(actor: Actor, input: MatchMessagesInput) {
    const match = await findMemberMatch(this.deps.db, input.slug, userOf(actor).id);
    if (!match.chatRoom) return { messages: [], hasMore: false };
    return this.deps.chat.listRoomMessages(actor, {
      roomId: match.chatRoom.id,
      before: input.before,
      limit: input.limit,
    });
  }

  /**
   * Opens the private chat of a match for one of its sockets: members of an accepted or
   * completed match only. Checks: member 404 (also for an unknown id) → accepted 400 → no block
   * between the members 403 USER_BLOCKED (a completed match of a blocked pair). `enter`
   * puts the socket into the match room before the history is read, so no message falls
   * between the history and the live stream. Answers the last 20 messages, oldest first.
   */
  async joinRoom(actor: Actor, input: PrivateRoomInput) {
    const { matchId } = input;
    const { roomId } = await this.privateRoom(matchId, userOf(actor).id);
    await input.enter(rooms.match(matchId));
    const { messages } = await this.deps.chat.listRoomMessages(actor, { roomId, limit: JOIN_HISTORY });
    return { matchId, roomId, messages };
  }

  /**
   * Stores a private message of the actor in the match's room. Checks: content 400 (the chat
   * core's rule) → flood limit 429 (the limiter shared with the event chat: ~5 messages/s with
   * bursts of 10 per user) → member 404 → accepted 400 → no block 403 USER_BLOCKED → verified
   * e-mail 403 (read from the database, not the token) → not a duplicate 409 DUPLICATE_MESSAGE
   * (the chat core's rule). The block is checked again under the pair's shared lock in the
   * message's transaction, so a message racing with a block is either stored before it or
   * refused. The caller broadcasts the answer (`private_message` to the match room).
   */
  async sendMessage(actor: Actor, input: PrivateMessageInput): Promise<PrivateMessagePayload> {
    const { chat, chatFlood, settings, metrics } = this.deps;
    const author = userOf(actor);
    const { matchId } = input;
    const text = chat.validateContent(input.content);
    if (!(await chatFlood.take(author.id))) throw new AppError('CHAT_FLOOD');
    const { roomId, senderVerified, partnerId } = await this.privateRoom(matchId, author.id);
    if (settings.requireEmailVerification && !senderVerified) throw new AppError('EMAIL_NOT_VERIFIED');
    const guard = async (tx: Tx) => {
      await lockUserPair(tx, author.id, partnerId, 'shared');
      if (await isBlockedPair(tx, author.id, partnerId)) throw new AppError('USER_BLOCKED');
    };
    let message: ChatMessagePayload;
    try {
      message = await chat.createMessage(actor, { roomId, author, content: text, guard });
    } catch (err) {
      // the match (and its room) was deleted meanwhile
      if (isForeignKeyViolation(err)) throw new AppError('MATCH_NOT_FOUND');
      throw err;
    }
    metrics.chatMessageStored('private');
    return { ...message, matchId };
  }

  /**
   * The private room of a match the user may chat in, with whether the user's e-mail is verified
   * (one query): member 404 → accepted or completed 400 → no block between the members 403.
   */
  private async privateRoom(
    matchId: number,
    userId: number,
  ): Promise<{ roomId: number; senderVerified: boolean; partnerId: number }> {
    const { db } = this.deps;
    const match = await db.match.findUnique({
      where: { id: matchId },
      select: {
        user1Id: true,
        user2Id: true,
        status: true,
        chatRoom: { select: { id: true } },
        user1: { select: { emailVerified: true } },
        user2: { select: { emailVerified: true } },
      },
    });
    if (!match || !isMember(match, userId)) throw new AppError('MATCH_NOT_FOUND');
    if (!OPEN_STATUSES.includes(match.status) || !match.chatRoom) {
      throw new AppError('MATCH_NOT_ACCEPTED', { message: 'Private chat is available only for accepted matches' });
    }
    const sender = match.user1Id === userId ? match.user1 : match.user2;
    const partnerId = match.user1Id === userId ? match.user2Id : match.user1Id;
    if (await isBlockedPair(db, userId, partnerId)) throw new AppError('USER_BLOCKED');
    return { roomId: match.chatRoom.id, senderVerified: sender.emailVerified, partnerId };
  }
}

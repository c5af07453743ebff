import { AppError } from '../../lib/errors.js';
import { prisma } from '../../lib/prisma.js';
import type { ChatMessagePayload } from '../../realtime/types.js';

/**
 * Chat core shared by the event group chat and the private chat of a match:
 * content rules, storage and cursor paging of a room's messages.
 */
export const MESSAGE_MAX_LENGTH = 2000;
export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

const messageInclude = { user: { select: { username: true, avatar: true } } } as const;

type MessageRow = {
  id: number;
  roomId: number;
  userId: number;
  content: string;
  type: string;
  createdAt: Date;
  user: { username: string; avatar: string };
};

export function toMessagePayload(m: MessageRow): ChatMessagePayload {
  return {
    id: m.id,
    roomId: m.roomId,
    userId: m.userId,
    username: m.user.username,
    avatar: m.user.avatar,
    content: m.content,
    type: m.type,
    createdAt: m.createdAt,
  };
}

/**
 * Validates message content: a string of 1-2000 characters after trimming. The stored text
 * is exactly what was sent (plain text, never HTML-escaped or trimmed).
 */
export function validateContent(content: unknown): string {
  if (typeof content !== 'string') throw new AppError('VALIDATION_ERROR', { message: 'Message content must be a string' });
  const trimmed = content.trim();
  if (trimmed.length === 0) throw new AppError('VALIDATION_ERROR', { message: 'Message content must not be empty' });
  if (content.length > MESSAGE_MAX_LENGTH) {
    throw new AppError('VALIDATION_ERROR', { message: `Message content must be at most ${MESSAGE_MAX_LENGTH} characters` });
  }
  return content;
}

/**
 * A page of a room's history (SPEC.md "Messages"): with `before`, only ids lower than it;
 * the newest `limit` are selected (index Message(roomId, id)), then returned oldest first.
 * `hasMore` is true when the number returned equals `limit`.
 */
export async function listRoomMessages(
  roomId: number,
  options: { before?: number; limit?: number } = {},
): Promise<{ messages: ChatMessagePayload[]; hasMore: boolean }> {
  const limit = Math.min(Math.max(options.limit ?? DEFAULT_PAGE_SIZE, 1), MAX_PAGE_SIZE);
  const rows = await prisma.message.findMany({
    where: { roomId, ...(options.before !== undefined ? { id: { lt: options.before } } : {}) },
    orderBy: { id: 'desc' },
    take: limit,
    include: messageInclude,
  });
  return { messages: rows.reverse().map(toMessagePayload), hasMore: rows.length === limit };
}

/**
 * Stores a message of an author whose username and avatar are already known (the socket's
 * user): one INSERT, no read-back of the author (the hot path of the chats).
 */
export async function createMessage(
  roomId: number,
  author: { id: number; username: string; avatar: string },
  content: string,
): Promise<ChatMessagePayload> {
  const row = await prisma.message.create({
    data: { roomId, userId: author.id, content: validateContent(content), type: 'text' },
    select: { id: true, type: true, createdAt: true },
  });
  return {
    id: row.id,
    roomId,
    userId: author.id,
    username: author.username,
    avatar: author.avatar,
    content,
    type: row.type,
    createdAt: row.createdAt,
  };
}

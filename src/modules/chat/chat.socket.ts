import { AppError } from '../../lib/errors.js';
import { config } from '../../config/index.js';
import type { AppServer, AppSocket, SocketRegistrar } from '../../realtime/io.js';
import { handle } from '../../realtime/io.js';
import { bridgedContainer } from '../../container-bridge.js';
import { rooms } from '../../realtime/types.js';
import { logActivity } from '../activity-log/activity-log.service.js';
import { createMessage, DEFAULT_PAGE_SIZE, listRoomMessages, validateContent } from './chat.service.js';
import { notParticipantError, openEventRoom, senderContext } from './event-chat.service.js';
import { TokenBucketLimiter } from './flood-limit.js';

export const ChatSocketMessages = {
  joinFirst: 'Join an event room first',
  tooFast: 'You are sending messages too fast',
} as const;

/** ~5 messages per second with bursts of 10, per user (all of the user's sockets together). */
export const floodLimiter = new TokenBucketLimiter(5, 10);
/** A flood is logged once per user and minute, not once per refused message. */
const floodLoggedAt = new Map<number, number>();
const FLOOD_LOG_INTERVAL_MS = 60_000;

/**
 * Presence of an event room: the distinct users whose sockets are in it. fetchSockets() asks
 * every instance when the Redis adapter is in use.
 */
export async function broadcastActiveUsers(io: AppServer, eventId: number): Promise<void> {
  const room = rooms.event(eventId);
  try {
    const sockets = await io.in(room).fetchSockets();
    const users = new Map<number, { userId: number; username: string; avatar: string }>();
    for (const s of sockets) {
      const u = s.data.user;
      if (u && !users.has(u.id)) users.set(u.id, { userId: u.id, username: u.username, avatar: u.avatar });
    }
    io.to(room).emit('active_users', [...users.values()]);
  } catch {
    // presence is best effort
  }
}

async function leaveCurrentRoom(io: AppServer, socket: AppSocket): Promise<void> {
  const eventId = socket.data.eventId;
  if (eventId === undefined) return;
  socket.data.eventId = undefined;
  socket.data.eventSlug = undefined;
  await socket.leave(rooms.event(eventId));
  await broadcastActiveUsers(io, eventId);
}

function logFlood(socket: AppSocket, eventId: number): void {
  const user = socket.data.user;
  const now = Date.now();
  if (now - (floodLoggedAt.get(user.id) ?? 0) < FLOOD_LOG_INTERVAL_MS) return;
  floodLoggedAt.set(user.id, now);
  void logActivity({
    category: 'chat',
    action: 'chat_flood_limited',
    success: false,
    userId: user.id,
    username: user.username,
    resource: `event:${socket.data.eventSlug ?? eventId}`,
    ip: socket.handshake.address,
  });
}

/**
 * Event group chat over Socket.IO (DECISIONS.md "Real-time channel"):
 * join_event_room(slug) → joins `event_<id>`, message_history (last 20, oldest first), active_users;
 * leave_event_room; send_event_message({ content }) → event_message to the room only.
 */
export const registerChatSocket: SocketRegistrar = (io, socket) => {
  socket.on(
    'join_event_room',
    handle(socket, async (slug: unknown) => {
      const userId = socket.data.user.id;
      const { event, room } = await openEventRoom(slug, userId);
      if (socket.data.eventId !== undefined && socket.data.eventId !== event.id) await leaveCurrentRoom(io, socket);
      await socket.join(rooms.event(event.id));
      socket.data.eventId = event.id;
      socket.data.eventSlug = event.slug;
      const { messages } = await listRoomMessages(room.id, { limit: DEFAULT_PAGE_SIZE });
      socket.emit('message_history', messages);
      await broadcastActiveUsers(io, event.id);
      return { eventId: event.id, slug: event.slug, roomId: room.id };
    }),
  );

  socket.on(
    'leave_event_room',
    handle(socket, async () => {
      await leaveCurrentRoom(io, socket);
    }),
  );

  socket.on(
    'send_event_message',
    handle(socket, async (payload: unknown) => {
      const eventId = socket.data.eventId;
      if (eventId === undefined) throw new AppError('NOT_IN_ROOM');
      const content = validateContent((payload as { content?: unknown } | null | undefined)?.content);
      const user = socket.data.user;
      if (!floodLimiter.take(user.id)) {
        logFlood(socket, eventId);
        throw new AppError('CHAT_FLOOD');
      }
      const ctx = await senderContext(eventId, user.id);
      if (!ctx) throw new AppError('INVALID_TOKEN'); // user deleted meanwhile
      if (config.requireEmailVerification && !ctx.emailVerified) {
        throw new AppError('EMAIL_NOT_VERIFIED');
      }
      if (!ctx.participant) {
        await leaveCurrentRoom(io, socket);
        throw notParticipantError();
      }
      if (ctx.roomId === null) throw new AppError('CHAT_ROOM_NOT_FOUND');
      const message = await createMessage(ctx.roomId, { id: user.id, username: ctx.username, avatar: ctx.avatar }, content);
      io.to(rooms.event(eventId)).emit('event_message', message);
      return message;
    }),
  );

  socket.on('disconnect', () => {
    const eventId = socket.data.eventId;
    if (eventId !== undefined) void broadcastActiveUsers(io, eventId);
  });
};

/**
 * After a user left an event over HTTP: their sockets leave the event room and presence is
 * updated. Best effort; sending is refused anyway because participation is re-checked.
 */
export async function removeUserFromEventRoom(userId: number, eventId: number): Promise<void> {
  await bridgedContainer().notifier.removeUserFromEventRoom(userId, eventId);
}

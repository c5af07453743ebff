import type { AppServer, AppSocket, SocketRegistrar } from '../../realtime/io.js';
import { handle, socketActor } from '../../realtime/io.js';
import { rooms } from '../../realtime/types.js';

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

/** The event room this socket joined, if any. */
function joinedRoom(socket: AppSocket) {
  const { eventId, eventSlug } = socket.data;
  return eventId === undefined ? undefined : { eventId, slug: eventSlug ?? String(eventId) };
}

/**
 * Event group chat over Socket.IO (src/realtime/types.ts):
 * join_event_room(slug) → joins `event_<id>`, message_history (last 20, oldest first), active_users;
 * leave_event_room; send_event_message({ content }) → event_message to the room only. The rules
 * live in EventChatService; this layer keeps the socket's joined room and the presence list.
 */
export const registerChatSocket: SocketRegistrar = (io, socket, { eventChat, notifier, logger }) => {
  socket.on(
    'join_event_room',
    handle(
      socket,
      async (slug: unknown) => {
        const { event, room, history } = await eventChat.openRoom(slug, socket.data.user.id);
        if (socket.data.eventId !== undefined && socket.data.eventId !== event.id) await leaveCurrentRoom(io, socket);
        await socket.join(rooms.event(event.id));
        socket.data.eventId = event.id;
        socket.data.eventSlug = event.slug;
        socket.emit('message_history', history);
        await broadcastActiveUsers(io, event.id);
        return { eventId: event.id, slug: event.slug, roomId: room.id };
      },
      logger,
    ),
  );

  socket.on(
    'leave_event_room',
    handle(socket, () => leaveCurrentRoom(io, socket), logger),
  );

  socket.on(
    'send_event_message',
    handle(
      socket,
      async (payload: unknown) => {
        const content = (payload as { content?: unknown } | null | undefined)?.content;
        const actor = socketActor(socket, 'send_event_message');
        const { eventId, message } = await eventChat.postMessage(actor, socket.data.user.id, joinedRoom(socket), content);
        notifier.toRoom(rooms.event(eventId), 'event_message', message);
        return message;
      },
      logger,
    ),
  );

  socket.on('disconnect', () => {
    const eventId = socket.data.eventId;
    if (eventId !== undefined) void broadcastActiveUsers(io, eventId);
  });
};

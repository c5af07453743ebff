import {
  handle,
  parsePayload,
  socketActor,
  type AppSocket,
  type SocketEdge,
  type SocketRegistrar,
} from '../../realtime/io.js';
import type { Notifier } from '../../realtime/notifier.js';
import { rooms } from '../../realtime/types.js';
import { eventPresence } from './chat.presence.js';
import { activeUsersPageInput, eventMessageInput, joinEventRoomInput } from './chat.schemas.js';
import type { EventMessagesService } from './event-messages.service.js';
import type { EventRoomService } from './event-room.service.js';

/** What the event chat's socket handlers call (src/realtime/registrars.ts). */
export interface ChatSocketDeps {
  eventRoom: Pick<EventRoomService, 'openRoom'>;
  eventMessages: Pick<EventMessagesService, 'postMessage'>;
  notifier: Notifier;
  edge: SocketEdge;
}

/** The event room this socket joined, if any. */
function joinedRoom(socket: AppSocket) {
  const { eventId, eventSlug } = socket.data;
  return eventId === undefined ? undefined : { eventId, slug: eventSlug ?? String(eventId) };
}

/**
 * Event group chat over Socket.IO (src/realtime/types.ts):
 * join_event_room(slug) → joins `event_<id>`; the socket gets message_history (last 20,
 * oldest first) and active_users; the room gets user_joined / user_left deltas
 * (chat.presence.ts), or `presence_count` for sockets that chose it; list_active_users pages
 * through the room's users. leave_event_room; send_event_message({ content }) → event_message to
 * the room only. The rules live in EventRoomService
 * and EventMessagesService (the join throttle in src/realtime/io.ts).
 */
export const registerChatSocket: SocketRegistrar<ChatSocketDeps> = (
  io,
  socket,
  { eventRoom, eventMessages, notifier, edge },
) => {
  const presence = eventPresence(io);
  handle(
    socket,
    'join_event_room',
    async (payload: unknown) => {
      const slug = await parsePayload(joinEventRoomInput, payload);
      const actor = socketActor(socket, 'join_event_room');
      const { event, room, history } = await eventRoom.openRoom(actor, { slug });
      socket.emit('message_history', history);
      await presence.join(socket, event);
      return { eventId: event.id, slug: event.slug, roomId: room.id };
    },
    edge,
  );

  handle(socket, 'leave_event_room', () => presence.leave(socket), edge);

  handle(
    socket,
    'list_active_users',
    async (payload: unknown) => presence.page(socket, await parsePayload(activeUsersPageInput, payload ?? {})),
    edge,
  );

  handle(
    socket,
    'send_event_message',
    async (payload: unknown) => {
      const { content } = await parsePayload(eventMessageInput, payload);
      const actor = socketActor(socket, 'send_event_message');
      const { eventId, message, hiddenFrom } = await eventMessages.postMessage(actor, {
        joined: joinedRoom(socket),
        content,
      });
      // users in a blocked pair with the sender do not see the message (docs/moderation.md)
      notifier.toRoomExcept(rooms.event(eventId), hiddenFrom.map(rooms.user), 'event_message', message);
      return message;
    },
    edge,
  );

  socket.on('disconnecting', () => presence.disconnecting(socket));
};

import { handle, parsePayload, socketActor, type SocketEdge, type SocketRegistrar } from '../../realtime/io.js';
import type { Notifier } from '../../realtime/notifier.js';
import { rooms } from '../../realtime/types.js';
import { joinPrivateRoomInput, privateMessageInput } from './matches.schemas.js';
import type { PrivateChatService } from './private-chat.service.js';

/** What the private chat's socket handlers call (src/realtime/registrars.ts). */
export interface MatchesSocketDeps {
  privateChat: PrivateChatService;
  notifier: Notifier;
  edge: SocketEdge;
}

/**
 * Private chat of an accepted (or completed) match, for its two members only:
 * join_private_room → joins `match_<id>`, ack data `{ matchId, roomId, messages }` (last 20, oldest first);
 * send_private_message → stores the message, broadcasts `private_message` (message + matchId) to `match_<id>`.
 * The rules (membership, content, flood limit, verified e-mail) are PrivateChatService's.
 */
export const registerMatchesSocket: SocketRegistrar<MatchesSocketDeps> = (
  _io,
  socket,
  { privateChat, notifier, edge },
) => {
  handle(
    socket,
    'join_private_room',
    async (payload: unknown) => {
      const { matchId } = await parsePayload(joinPrivateRoomInput, payload);
      const enter = (room: string) => socket.join(room);
      return privateChat.joinRoom(socketActor(socket, 'join_private_room'), { matchId, enter });
    },
    edge,
  );

  handle(
    socket,
    'send_private_message',
    async (payload: unknown) => {
      const input = await parsePayload(privateMessageInput, payload);
      const message = await privateChat.sendMessage(socketActor(socket, 'send_private_message'), input);
      notifier.toRoom(rooms.match(message.matchId), 'private_message', message);
      return message;
    },
    edge,
  );
};

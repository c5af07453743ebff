import { handle, type SocketRegistrar } from '../../realtime/io.js';
import { rooms } from '../../realtime/types.js';
import { contentOf, matchIdOf } from './matches.schemas.js';

/**
 * Private chat of an accepted (or completed) match, for its two members only:
 * join_private_room → joins `match_<id>`, ack data `{ matchId, roomId, messages }` (last 20, oldest first);
 * send_private_message → stores the message, broadcasts `private_message` (message + matchId) to `match_<id>`.
 * The rules (membership, content, flood limit, verified e-mail) are MatchesService's.
 */
export const registerMatchesSocket: SocketRegistrar = (_io, socket, { matches, notifier, logger, metrics }) => {
  const edge = { logger, metrics };
  handle(
    socket,
    'join_private_room',
    (payload: unknown) => matches.joinPrivateRoom(matchIdOf(payload), socket.data.user.id, (room) => socket.join(room)),
    edge,
  );

  handle(
    socket,
    'send_private_message',
    async (payload: unknown) => {
      const message = await matches.sendPrivateMessage(matchIdOf(payload), socket.data.user, contentOf(payload));
      notifier.toRoom(rooms.match(message.matchId), 'private_message', message);
      return message;
    },
    edge,
  );
};

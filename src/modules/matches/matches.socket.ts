import { AppError } from '../../lib/errors.js';
import { isEmailVerified } from '../../middleware/auth.js';
import { emitToRoom, handle, type SocketRegistrar } from '../../realtime/io.js';
import { rooms } from '../../realtime/types.js';
import { createMessage, listRoomMessages, validateContent } from '../chat/chat.service.js';
import { privateRoomFor } from './matches.service.js';

/** The join sends the last 20 messages (SPEC.md "Limits"). */
const JOIN_HISTORY = 20;

function matchIdOf(payload: unknown): number {
  const matchId = (payload as { matchId?: unknown } | null | undefined)?.matchId;
  if (typeof matchId !== 'number' || !Number.isInteger(matchId) || matchId < 1) {
    throw new AppError('VALIDATION_ERROR', { message: 'matchId must be a positive integer' });
  }
  return matchId;
}

/**
 * Private chat of an accepted (or completed) match, for its two members only:
 * join_private_room → joins `match_<id>`, ack data `{ matchId, roomId, messages }` (last 20, oldest first);
 * send_private_message → stores the message, broadcasts `private_message` (message + matchId) to `match_<id>`.
 */
export const registerMatchesSocket: SocketRegistrar = (_io, socket) => {
  socket.on(
    'join_private_room',
    handle(socket, async (payload: unknown) => {
      const { matchId, roomId } = await privateRoomFor(matchIdOf(payload), socket.data.user.id);
      await socket.join(rooms.match(matchId));
      const { messages } = await listRoomMessages(roomId, { limit: JOIN_HISTORY });
      return { matchId, roomId, messages };
    }),
  );

  socket.on(
    'send_private_message',
    handle(socket, async (payload: unknown) => {
      const matchId = matchIdOf(payload);
      const content = validateContent((payload as { content?: unknown }).content);
      const userId = socket.data.user.id;
      const { roomId } = await privateRoomFor(matchId, userId);
      if (!(await isEmailVerified(userId))) throw new AppError('EMAIL_NOT_VERIFIED');
      const message = await createMessage(roomId, socket.data.user, content);
      const outgoing = { ...message, matchId };
      emitToRoom(rooms.match(matchId), 'private_message', outgoing);
      return outgoing;
    }),
  );
};

import { array, int, obj, ref, str, type Schema } from './openapi-helpers.js';
import { activeUsersPageInput, joinEventRoomInput } from '../modules/chat/chat.schemas.js';
import { webrtcSignalInput } from '../modules/webrtc/webrtc.schemas.js';

/**
 * The real-time channel (Socket.IO, path `/socket.io`), AsyncAPI-style: every event with its
 * direction, room and payload schema. The schemas live in `components.schemas` (prefix
 * `Socket`) so the test suite validates received payloads against the same document.
 */
const ackOk = (data?: Schema): Schema =>
  data ? obj({ success: { const: true }, data }) : obj({ success: { const: true } });

const ackFail = ref('SocketAckError');
const ack = (data?: Schema): Schema => ({ oneOf: [ackOk(data), ackFail] });

export const socketSchemas: Record<string, Schema> = {
  SocketAckError: obj({ success: { const: false }, error: str, code: ref('ErrorCode') }),
  SocketErrorMessage: obj({ error: str }),
  SocketPresenceUser: obj({ userId: int, username: str, avatar: str }),
  SocketPresenceLeft: obj({ userId: int }),
  SocketPresenceCount: obj({ count: { type: 'integer', minimum: 0, description: 'users in the event room (a user with several sockets counts once)' } }),
  SocketPresenceChanges: obj({
    changes: {
      ...array({
        oneOf: [
          obj({ event: { const: 'user_joined' }, data: ref('SocketPresenceUser') }),
          obj({ event: { const: 'user_left' }, data: ref('SocketPresenceLeft') }),
        ],
      }),
      minItems: 1,
      description: 'in the order the changes happened; apply each as its single event would be applied',
    },
  }),
  SocketMatchNotification: obj({
    matchSlug: str,
    event: obj({ slug: str, name: str }),
    from: { oneOf: [ref('UserSummary'), ref('DeletedUserSummary')], description: 'the placeholder when the other member deleted the account' },
  }),
  SocketHeatsUpdated: obj({ userId: int, username: str, heats: array(ref('Heat')) }),
  SocketWebrtcSignalRelay: obj({
    matchSlug: str,
    from: ref('UserSummary'),
    kind: { enum: ['offer', 'answer', 'ice-candidate', 'hangup'] },
    data: {
      anyOf: [
        obj({ type: { enum: ['offer', 'answer'] }, sdp: { type: 'string', maxLength: 16384 } }),
        obj({ candidate: str, sdpMid: { type: ['string', 'null'] }, sdpMLineIndex: { type: ['integer', 'null'] }, usernameFragment: { type: ['string', 'null'] } }),
        { type: 'object', additionalProperties: true, description: 'hangup: the data the sender gave (≤ 2 KB)' },
        { type: 'null' },
      ],
    },
  }),
  SocketMessageDeleted: obj({ messageId: int }),
  SocketRecordingSuggestionsCreated: obj({ eventSlug: str, runId: { type: 'string', format: 'uuid' }, toBeRecorded: int, toRecord: int }),
};

const s = (name: string) => ref(name);

interface ClientEvent {
  description: string;
  payload?: Schema;
  ack: Schema;
}
interface ServerEvent {
  description: string;
  room: string;
  payload: Schema;
}

export const clientToServer: Record<string, ClientEvent> = {
  join_event_room: {
    description:
      'Joins `event_<id>` (participants only; leaves a previously joined event room). The joining socket gets `message_history` and `active_users`; the room gets `user_joined` if this is the user\'s first socket in it. At most 10 joins in a burst per socket, refilled at 1 a second (more → 429 ROOM_JOIN_THROTTLED).',
    payload: joinEventRoomInput.schema,
    ack: ack(obj({ eventId: int, slug: str, roomId: int })),
  },
  leave_event_room: { description: 'Leaves the joined event room.', ack: ack() },
  list_active_users: {
    description:
      "A page of the joined event room's users, by ascending `userId`: those with an id above `after` (default 0), at most `limit` (1-100, default 100), with the room's `count`; `nextAfter` is the `after` of the next page (null on the last). Any presence mode; meant for `auth.presence: 'count'`, whose sockets get no list on join. Not in an event room → 400 NOT_IN_ROOM \"Join an event room first\". Per socket at most 60 pages at once, then 10 a second (more → 429 RATE_LIMITED). The payload may be left out.",
    payload: activeUsersPageInput.openapi.body,
    ack: ack(obj({ users: array(s('SocketPresenceUser')), count: int, nextAfter: { type: ['integer', 'null'] } })),
  },
  send_event_message: {
    description:
      'Posts to the joined event room (1-2000 characters after trim; verified e-mail; 5 messages/s, bursts of 10). Broadcast as `event_message`, except to users in a blocked pair with the sender. The same text (trimmed, case-insensitive) the same user stored in the same room less than 30 s earlier → ack `DUPLICATE_MESSAGE` "Duplicate message", nothing stored or broadcast.',
    payload: obj({ content: { type: 'string', minLength: 1, maxLength: 2000 } }),
    ack: ack(s('Message')),
  },
  join_private_room: {
    description:
      'Joins `match_<id>` of an accepted or completed match of the caller; the ack carries the last 20 messages. Throttled like join_event_room (429 ROOM_JOIN_THROTTLED). A completed match of a blocked pair → ack `USER_BLOCKED` "You cannot interact with this user".',
    payload: obj({ matchId: { type: 'integer', minimum: 1 } }),
    ack: ack(obj({ matchId: int, roomId: int, messages: array(s('Message')) })),
  },
  send_private_message: {
    description:
      'Posts to the private room of the match (verified e-mail). Broadcast as `private_message`. A completed match of a blocked pair → ack `USER_BLOCKED`; the duplicate filter of send_event_message applies (ack `DUPLICATE_MESSAGE`).',
    payload: obj({ matchId: { type: 'integer', minimum: 1 }, content: { type: 'string', minLength: 1, maxLength: 2000 } }),
    ack: ack(s('PrivateMessage')),
  },
  webrtc_signal: {
    description:
      'Video hand-off signaling, relayed to the other member of an accepted or completed match as `webrtc_signal` (offer/answer data `{ type, sdp }` with sdp ≤ 16 KB; ice-candidate data an RTCIceCandidateInit ≤ 2 KB; hangup data optional, an object nested at most 8 levels (deeper → INVALID_SIGNAL, checked before serialising) and ≤ 2 KB). Per user at most bursts of 100, 50 a second. A completed match of a blocked pair → ack `USER_BLOCKED`, nothing relayed.',
    payload: webrtcSignalInput.schema,
    ack: ack(),
  },
  join_admin_activity_logs: { description: 'Admins only: starts the `activity_log_entry` stream. Throttled like join_event_room (429 ROOM_JOIN_THROTTLED).', ack: ack() },
  leave_admin_activity_logs: { description: 'Stops the stream.', ack: ack() },
};

export const serverToClient: Record<string, ServerEvent> = {
  error_message: { description: 'A refused client event sent without an ack callback.', room: 'the socket', payload: s('SocketErrorMessage') },
  message_history: { description: 'The last 20 messages, oldest first, on join_event_room.', room: 'the joining socket', payload: array(s('Message')) },
  event_message: { description: 'A new message of the event chat.', room: 'event_<id>', payload: s('Message') },
  private_message: { description: 'A new message of a match chat.', room: 'match_<id>', payload: s('PrivateMessage') },
  active_users: {
    description:
      'Everyone in the event room (one entry per user, the joiner included), sent only to the socket that joined. Presence changes after it arrive as `user_joined`/`user_left` deltas; the full list is never broadcast. Apply the deltas as set operations: a concurrent change may be both in the list and in a delta, and sockets of one user joining or leaving at the same instant on two instances may produce a duplicate delta.',
    room: 'the joining socket',
    payload: array(s('SocketPresenceUser')),
  },
  user_joined: {
    description: "A user's first socket joined the event room (not sent to that socket).",
    room: 'event_<id>',
    payload: s('SocketPresenceUser'),
  },
  user_left: {
    description: "A user's last socket left the event room (leave_event_room, joining another event room, disconnect, or leaving the event).",
    room: 'event_<id>',
    payload: s('SocketPresenceLeft'),
  },
  presence_changes: {
    description:
      "Only to sockets whose handshake chose `auth: { presence: 'batched' }`, instead of `user_joined`/`user_left`: the presence changes of a short window (at most 100 ms; changes alone are never delayed longer than the single events would be) in one event, in order, each `{ event, data }` with the name and payload its single event would have. When many dancers join at once (a restart), a member gets a few of these instead of one event per joiner.",
    room: 'event_<id> (sockets with `auth.presence` batched)',
    payload: s('SocketPresenceChanges'),
  },
  presence_count: {
    description:
      "Only to sockets whose handshake chose `auth: { presence: 'count' }`, instead of `active_users` and the changes: how many users are in the event room. The joining socket gets it after join_event_room; the members get it again when the count changed, at most once a second per service instance (in a room of more than 1 000 sockets on an instance, at most once per n ms for n sockets, also while the room fills up: a room's count costs at most ~1 000 frames a second). Page through the users with list_active_users. What a member receives no longer grows with the room: the list and the changes cost every member of a room of n users about n frames' worth of data each time the room fills up (a restart), this costs a few bytes a second.",
    room: 'event_<id> (sockets with `auth.presence` count) and the joining socket',
    payload: s('SocketPresenceCount'),
  },
  heats_updated: {
    description:
      "A user's heats after POST heats or a heat deletion. Sent in batches per event room, in the order the changes were saved: the first after a quiet spell at once, the ones saved within the next interval together when it ends (1 ms per 3 sockets of the room on the instance, at most 1 s: 3 000 phones get a burst of changes at most once a second).",
    room: 'event_<id>',
    payload: s('SocketHeatsUpdated'),
  },
  match_request_received: { description: 'A match was requested from the user.', room: 'user_<id>', payload: s('SocketMatchNotification') },
  match_accepted: { description: "The user's match request was accepted.", room: 'user_<id>', payload: s('SocketMatchNotification') },
  match_cancelled: { description: 'The other member deleted (rejected or cancelled) the match, or deleted the account (`from` is then the placeholder).', room: 'user_<id>', payload: s('SocketMatchNotification') },
  recording_suggestions_created: { description: 'A matching run concerned the user (counts).', room: 'user_<id>', payload: s('SocketRecordingSuggestionsCreated') },
  webrtc_signal: { description: 'A signal of the other member of the match.', room: 'user_<id>', payload: s('SocketWebrtcSignalRelay') },
  transfer_updated: { description: 'A video hand-off record after its creation and every status change (both members).', room: 'user_<id>', payload: s('Transfer') },
  activity_log_entry: { description: 'A new activity log entry.', room: 'admin_activity_logs', payload: s('ActivityLogEntry') },
  message_deleted: {
    description: 'An admin removed a message of the room (DELETE /admin/messages/{id}): clients drop it from what they show.',
    room: 'event_<id> / match_<id>',
    payload: s('SocketMessageDeleted'),
  },
};

export const socketEvents = {
  description:
    'Socket.IO on the API port, path `/socket.io`. Auth: `io(url, { auth: { token } })` or `Authorization: Bearer` in the handshake headers; missing or invalid → `connect_error` "Authentication required" / "Invalid or expired token". At most 20 sockets per user on one service instance: more → `connect_error` "Too many connections for this user" (`data.code` TOO_MANY_CONNECTIONS). Every handshake refusal carries `data.code`: AUTH_REQUIRED (no token), INVALID_TOKEN, TOO_MANY_CONNECTIONS, SERVICE_UNAVAILABLE (database unreachable: retry), VALIDATION_ERROR (`auth.presence` not `deltas`, `batched` or `count`). Presence in event rooms: `auth.presence` `deltas` (the default, also when absent) sends one `user_joined`/`user_left` per change; `batched` sends `presence_changes` instead (the same changes, several per event); `count` sends neither nor `active_users`, only `presence_count` (the list is paged with `list_active_users`): for big rooms, where the others cost each phone data that grows with the size of the room. Every socket joins `user_<id>`. Every client event takes an optional acknowledgement callback. An event the service does not know: with an acknowledgement → `{ success: false, error: "Unknown event", code: "UNKNOWN_EVENT" }` at once; without one → `error_message` `{ error: "Unknown event" }`.',
  clientToServer,
  serverToClient,
};

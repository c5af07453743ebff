import type { HeatView } from '../modules/heats/heats.views.js';
import type { Server, Socket } from 'socket.io';
import type { AuthUser, TokenSession } from '../lib/auth.js';
import type { MessageView, PrivateMessageView } from '../modules/chat/chat.views.js';

/**
 * Typed Socket.IO event maps (docs/realtime.md, OpenAPI `x-socket-io`).
 * Every client→server event takes an optional acknowledgement answered with an AckResponse.
 */
export type AckResponse<T = unknown> = { success: true; data?: T } | { success: false; error: string; code: string };
export type Ack<T = unknown> = (response: AckResponse<T>) => void;

export interface UserSummary {
  id: number;
  username: string;
  avatar: string;
  firstName?: string | null;
  lastName?: string | null;
}

/** How a deleted account is shown where its traces stay (src/lib/user-summary.ts DELETED_USER_SUMMARY). */
export interface DeletedUserSummary {
  id: null;
  username: 'deleted-user';
  avatar: null;
  firstName: null;
  lastName: null;
}

/** A chat message with its author (src/modules/chat/chat.views.ts). */
export type ChatMessagePayload = MessageView;
/** A message of a match's private chat. */
export type PrivateMessagePayload = PrivateMessageView;

/** A heat (the heat view of src/modules/heats/heats.views.ts), with the competitor number where a list adds it. */
export type HeatPayload = HeatView & { competitorNumber?: string | null };

/** One activity-log entry as streamed to admins (same shape as GET /admin/activity-logs rows). */
export interface ActivityLogEntryPayload {
  id: number;
  createdAt: Date;
  category: string;
  action: string;
  userId: number | null;
  username: string | null;
  success: boolean;
  ip: string | null;
  method: string | null;
  path: string | null;
  resource: string | null;
  metadata: unknown;
}

export interface MatchNotification {
  matchSlug: string;
  event: { slug: string; name: string };
  /** the placeholder when the match ended because the other member deleted the account */
  from: UserSummary | DeletedUserSummary;
}

export type WebrtcSignalKind = 'offer' | 'answer' | 'ice-candidate' | 'hangup';

/** `webrtc_signal` c→s: offer/answer data `{ type, sdp }`, ice-candidate data an RTCIceCandidateInit, hangup data optional. */
export interface WebrtcSignalInput {
  matchSlug: string;
  kind: WebrtcSignalKind;
  data: unknown;
}

/** `webrtc_signal` s→c (`user_<id>` of the other member). */
export interface WebrtcSignalRelay extends WebrtcSignalInput {
  from: UserSummary;
}

/** A video hand-off record (GET /matches/:slug/transfers item; `transfer_updated` payload). */
export interface TransferPayload {
  id: number;
  matchSlug: string;
  sender: UserSummary;
  receiver: UserSummary;
  fileName: string;
  size: number;
  sha256: string;
  status: 'offered' | 'completed' | 'failed' | 'cancelled';
  createdAt: Date | string;
  updatedAt: Date | string;
  finishedAt: Date | string | null;
}

export interface ClientToServerEvents {
  join_event_room: (slug: string, ack?: Ack) => void;
  leave_event_room: (ack?: Ack) => void;
  send_event_message: (payload: { content: string }, ack?: Ack) => void;
  list_active_users: (payload?: { after?: number; limit?: number }, ack?: Ack) => void;
  join_private_room: (payload: { matchId: number }, ack?: Ack) => void;
  send_private_message: (payload: { matchId: number; content: string }, ack?: Ack) => void;
  join_admin_activity_logs: (ack?: Ack) => void;
  leave_admin_activity_logs: (ack?: Ack) => void;
  webrtc_signal: (payload: WebrtcSignalInput, ack?: Ack) => void;
}

export interface ServerToClientEvents {
  error_message: (payload: { error: string }) => void;
  message_history: (messages: ChatMessagePayload[]) => void;
  event_message: (message: ChatMessagePayload) => void;
  private_message: (message: PrivateMessagePayload) => void;
  active_users: (users: { userId: number; username: string; avatar: string }[]) => void;
  user_joined: (user: { userId: number; username: string; avatar: string }) => void;
  user_left: (payload: { userId: number }) => void;
  presence_changes: (payload: PresenceChanges) => void;
  presence_count: (payload: PresenceCount) => void;
  heats_updated: (payload: { userId: number; username: string; heats: HeatPayload[] }) => void;
  match_request_received: (payload: MatchNotification) => void;
  match_accepted: (payload: MatchNotification) => void;
  match_cancelled: (payload: MatchNotification) => void;
  recording_suggestions_created: (payload: {
    eventSlug: string;
    runId: string;
    toBeRecorded: number;
    toRecord: number;
  }) => void;
  activity_log_entry: (entry: ActivityLogEntryPayload) => void;
  webrtc_signal: (payload: WebrtcSignalRelay) => void;
  transfer_updated: (payload: TransferPayload) => void;
  /** an admin removed a message of the room (moderation): clients drop it */
  message_deleted: (payload: { messageId: number }) => void;
}

export type InterServerEvents = Record<string, never>;

export interface SocketData {
  user: AuthUser;
  /** the handshake token's session: checked before every event (expiry) and room join (revocation) */
  session: TokenSession;
  /** id of the event room this socket joined with join_event_room */
  eventId?: number;
  eventSlug?: string;
}

export const rooms = {
  user: (userId: number) => `user_${userId}`,
  event: (eventId: number) => `event_${eventId}`,
  match: (matchId: number) => `match_${matchId}`,
  adminActivityLogs: 'admin_activity_logs',
  /**
   * Every socket is in exactly one of these from its handshake on (`auth.presence`,
   * src/modules/chat/chat.presence.ts): how it hears of presence changes in its event room.
   */
  presenceDeltas: 'presence_deltas',
  presenceBatched: 'presence_batched',
  presenceCount: 'presence_count',
} as const;

/**
 * How a socket hears of presence changes: one event per change (the default), batched, or only
 * the room's head count (`presence_count`, the list paged on demand with `list_active_users`).
 */
export type PresenceMode = 'deltas' | 'batched' | 'count';

/** `presence_count` s→c (sockets that chose `auth.presence: 'count'`): how many users are in the room. */
export interface PresenceCount {
  count: number;
}

/** The ack data of `list_active_users`: a page of the room's users by ascending id. */
export interface ActiveUsersPage {
  users: { userId: number; username: string; avatar: string }[];
  count: number;
  /** the `after` of the next page; null on the last page */
  nextAfter: number | null;
}

/**
 * `presence_changes` s→c (sockets that chose `auth.presence: 'batched'`): the changes that
 * `user_joined`/`user_left` would have carried one by one, in the same order.
 */
export interface PresenceChanges {
  changes: (
    | { event: 'user_joined'; data: { userId: number; username: string; avatar: string } }
    | { event: 'user_left'; data: { userId: number } }
  )[];
}

/** The Socket.IO server and socket of this service, typed by the event maps above. */
export type AppServer = Server<ClientToServerEvents, ServerToClientEvents, InterServerEvents, SocketData>;
export type AppSocket = Socket<ClientToServerEvents, ServerToClientEvents, InterServerEvents, SocketData>;

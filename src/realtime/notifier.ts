import type { Logger } from '../lib/logger.js';
import { noticeInterval, RoomBatches, roomSize } from './room-batches.js';
import type { AppServer } from './types.js';
import type { ServerToClientEvents } from './types.js';
import { rooms } from './types.js';

/** Takes all of a user's sockets out of an event room and tells the room (src/modules/chat/chat.presence.ts). */
export interface EventRoomPresence {
  removeUser(userId: number, eventId: number): Promise<void>;
}

/**
 * The services' only way to reach connected clients. It is created with the container and
 * bound to the Socket.IO server when one is attached (src/realtime/io.ts); without one (CLI,
 * HTTP-only tests) every call is a no-op. Services call it after their transaction committed.
 * A failed emit never fails the caller: it is logged.
 */
export class Notifier {
  private io: AppServer | undefined;
  private presence: EventRoomPresence | undefined;
  private readonly batches: RoomBatches;

  /** `interval`: how long a room's batched notices wait after its last batch (tests set their own) */
  constructor(
    private readonly logger: Logger,
    interval?: (room: string) => number,
  ) {
    this.batches = new RoomBatches({
      interval: interval ?? ((room) => (this.io ? noticeInterval(this.io, room) : 0)),
      members: (room) => (this.io ? roomSize(this.io, room) : 0),
    });
  }

  bind(io: AppServer, presence?: EventRoomPresence): void {
    this.io = io;
    this.presence = presence;
  }

  unbind(): void {
    this.batches.flush();
    this.io = undefined;
    this.presence = undefined;
  }

  get server(): AppServer | undefined {
    return this.io;
  }

  toRoom<E extends keyof ServerToClientEvents>(
    room: string,
    event: E,
    ...args: Parameters<ServerToClientEvents[E]>
  ): void {
    try {
      this.io?.to(room).emit(event, ...args);
    } catch (err) {
      this.logger.warn({ err, room, event }, 'socket broadcast failed');
    }
  }

  /**
   * As toRoom, for a notice nobody waits for within a second (`heats_updated`): sent
   * in a batch with the room's other batched notices (src/realtime/room-batches.ts), so that a
   * burst of them costs each member of a big room one write per batch instead of one per notice.
   * Order among a room's batched notices is kept; the first after a quiet spell leaves at once.
   */
  toRoomBatched<E extends keyof ServerToClientEvents>(
    room: string,
    event: E,
    ...args: Parameters<ServerToClientEvents[E]>
  ): void {
    if (!this.io) return;
    this.batches.add(room, () => this.toRoom(room, event, ...args));
  }

  /** As toRoom, except to the sockets in any of the `except` rooms (e.g. `user_<id>` of blocked users). */
  toRoomExcept<E extends keyof ServerToClientEvents>(
    room: string,
    except: string[],
    event: E,
    ...args: Parameters<ServerToClientEvents[E]>
  ): void {
    if (except.length === 0) return this.toRoom(room, event, ...args);
    try {
      this.io
        ?.to(room)
        .except(except)
        .emit(event, ...args);
    } catch (err) {
      this.logger.warn({ err, room, event }, 'socket broadcast failed');
    }
  }

  toUser<E extends keyof ServerToClientEvents>(
    userId: number,
    event: E,
    ...args: Parameters<ServerToClientEvents[E]>
  ): void {
    this.toRoom(rooms.user(userId), event, ...args);
  }

  /** Takes every socket of the user out of a room (e.g. a match that ended). */
  removeUserFromRoom(userId: number, room: string): void {
    try {
      this.io?.in(rooms.user(userId)).socketsLeave(room);
    } catch (err) {
      this.logger.warn({ err, room, userId }, 'socket room removal failed');
    }
  }

  /**
   * Emits to the sockets of a room whose users `allowed` still admits (e.g. current admins);
   * the other sockets are taken out of the room instead. For rooms whose membership depends on
   * a role that can be lost while connected.
   */
  async toRoomMembers<E extends keyof ServerToClientEvents>(
    room: string,
    allowed: (userIds: number[]) => Promise<Set<number>>,
    event: E,
    ...args: Parameters<ServerToClientEvents[E]>
  ): Promise<void> {
    if (!this.io) return;
    try {
      const sockets = await this.io.in(room).fetchSockets();
      if (sockets.length === 0) return;
      const admitted = await allowed([...new Set(sockets.map((s) => s.data.user.id))]);
      for (const socket of sockets) {
        if (admitted.has(socket.data.user.id)) socket.emit(event, ...args);
        else socket.leave(room);
      }
    } catch (err) {
      this.logger.warn({ err, room, event }, 'socket broadcast failed');
    }
  }

  /**
   * Disconnects the user's sockets whose handshake token is older than `keepTokenVersion`
   * (all of them without it): after a password change or reset.
   */
  async disconnectUser(userId: number, keepTokenVersion?: number): Promise<void> {
    if (!this.io) return;
    try {
      const sockets = await this.io.in(rooms.user(userId)).fetchSockets();
      for (const socket of sockets) {
        if (keepTokenVersion === undefined || socket.data.session.tokenVersion < keepTokenVersion)
          socket.disconnect(true);
      }
    } catch (err) {
      this.logger.warn({ err, userId }, 'socket disconnect failed');
    }
  }

  /** After a user left an event: their sockets leave the event room and the room gets `user_left`. */
  async removeUserFromEventRoom(userId: number, eventId: number): Promise<void> {
    if (!this.io) return;
    if (!this.presence) return this.removeUserFromRoom(userId, rooms.event(eventId));
    try {
      await this.presence.removeUser(userId, eventId);
    } catch (err) {
      this.logger.warn({ err, eventId, userId }, 'presence update failed');
      this.removeUserFromRoom(userId, rooms.event(eventId));
    }
  }
}

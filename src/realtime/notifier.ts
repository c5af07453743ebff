import type { Logger } from '../lib/logger.js';
import type { AppServer } from './io.js';
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

  constructor(private readonly logger: Logger) {}

  bind(io: AppServer, presence?: EventRoomPresence): void {
    this.io = io;
    this.presence = presence;
  }

  unbind(): void {
    this.io = undefined;
    this.presence = undefined;
  }

  get server(): AppServer | undefined {
    return this.io;
  }

  toRoom<E extends keyof ServerToClientEvents>(room: string, event: E, ...args: Parameters<ServerToClientEvents[E]>): void {
    try {
      this.io?.to(room).emit(event, ...args);
    } catch (err) {
      this.logger.warn({ err, room, event }, 'socket broadcast failed');
    }
  }

  toUser<E extends keyof ServerToClientEvents>(userId: number, event: E, ...args: Parameters<ServerToClientEvents[E]>): void {
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

import type { AppServer } from './types.js';

/** The sockets of a room on this instance. */
export const roomSize = (io: AppServer, room: string) => io.of('/').adapter.rooms.get(room)?.size ?? 0;

/**
 * How long after a room's presence outbox was sent the next one leaves
 * (src/modules/chat/chat.presence.ts): 1 ms per 20 sockets of the room on this instance, at most
 * 100 ms (3 000 phones: 100 ms; a room of 10: half a millisecond, i.e. at once).
 */
export function roomInterval(io: AppServer, room: string): number {
  return Math.min(100, roomSize(io, room) / 20);
}

/**
 * How long after a room's last batch of notices (Notifier.toRoomBatched) the next one leaves:
 * 1 ms per 3 sockets of the room on this instance, at most 1 s (3 000 phones: 1 s; 300: 100 ms;
 * a room of 3: at once). Each batch costs a write to every member, so in a big room a steady
 * stream of notices costs at most one such round a second instead of one per notice.
 */
export function noticeInterval(io: AppServer, room: string): number {
  return Math.min(1000, roomSize(io, room) / 3);
}

/**
 * A send of many broadcasts to a big room lets the event loop run after about this many
 * deliveries (these batches, presence's outbox).
 */
export const YIELD_EVERY = 20_000;

export interface RoomBatchSettings {
  /** how long after a room's last batch its next one leaves (ms) */
  interval(room: string): number;
  /** how many sockets one broadcast to the room reaches */
  members(room: string): number;
}

/**
 * Broadcasts to a room gathered into batches, at most one batch per `interval(room)`: the first
 * after a quiet spell leaves in the next turn of the event loop, the ones arriving within the
 * interval after it leave together when it ends, in the order they came. A batch is sent in one
 * turn, or, when it reaches more than YIELD_EVERY sockets in all, in turns of about that many
 * deliveries, so requests and health checks go on meanwhile. A member then gets a turn's frames
 * in one write (src/realtime/corked-writes.ts) instead of one write per broadcast: 132
 * `heats_updated` of a burst of heat changes, each written to 3 000 sockets in a turn of its
 * own, kept the service busy for 5 s (docs/event-day.md, "What was changed").
 */
export class RoomBatches {
  /** per room: the broadcasts not due yet, and how to cancel their timer */
  private readonly pending = new Map<string, { sends: (() => void)[]; cancel: () => void }>();
  /** per room: the broadcasts due, in order, sent by one drain at a time */
  private readonly due = new Map<string, (() => void)[]>();
  private readonly lastSentAt = new Map<string, number>();

  constructor(private readonly settings: RoomBatchSettings) {}

  add(room: string, send: () => void): void {
    const batch = this.pending.get(room);
    if (batch) {
      batch.sends.push(send);
      return;
    }
    const wait = (this.lastSentAt.get(room) ?? -Infinity) + this.settings.interval(room) - performance.now();
    let cancel: () => void;
    if (wait > 0) {
      const timer = setTimeout(() => this.release(room), wait).unref();
      cancel = () => clearTimeout(timer);
    } else {
      const immediate = setImmediate(() => this.release(room)).unref();
      cancel = () => clearImmediate(immediate);
    }
    this.pending.set(room, { sends: [send], cancel });
  }

  /** Sends every batch now, in one go (before the server stops). */
  flush(): void {
    for (const [room, batch] of this.pending) {
      batch.cancel();
      this.release(room, false);
    }
    for (const sends of this.due.values()) for (const send of sends.splice(0)) send();
    this.due.clear();
  }

  /** The room's pending batch is due: after what is being sent of the room already. */
  private release(room: string, drain = true): void {
    const batch = this.pending.get(room);
    if (!batch) return;
    this.pending.delete(room);
    if (this.lastSentAt.size > 10_000) this.lastSentAt.clear();
    this.lastSentAt.set(room, performance.now());
    const due = this.due.get(room);
    if (due) due.push(...batch.sends);
    else {
      this.due.set(room, batch.sends);
      if (drain) void this.drain(room, batch.sends);
    }
  }

  private async drain(room: string, sends: (() => void)[]): Promise<void> {
    let delivered = 0;
    while (sends.length > 0) {
      sends.shift()!();
      delivered += this.settings.members(room);
      if (delivered >= YIELD_EVERY && sends.length > 0) {
        delivered = 0;
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    }
    if (this.due.get(room) === sends) this.due.delete(room);
  }
}

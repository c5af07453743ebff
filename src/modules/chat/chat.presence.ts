import { AppError } from '../../lib/errors.js';
import { TokenBucketLimiter } from '../../lib/flood-limit.js';
import type { AppServer, AppSocket } from '../../realtime/io.js';
import { spansInstances } from '../../realtime/redis-adapter.js';
import { roomInterval, roomSize, YIELD_EVERY } from '../../realtime/room-batches.js';
import { rooms, type ActiveUsersPage, type PresenceChanges } from '../../realtime/types.js';
import { MAX_PAGE_SIZE } from './chat.schemas.js';

export interface PresenceUser {
  userId: number;
  username: string;
  avatar: string;
}

/**
 * Presence of event rooms in deltas (docs/realtime.md, OpenAPI `x-socket-io`):
 * the joining socket alone gets `active_users` (everyone in the room); the room gets
 * `user_joined` when a user's first socket joins and `user_left` when the user's last socket
 * leaves or disconnects. A change costs one small frame per member, never the full list.
 *
 * "First/last socket of the user" is decided from the user's own sockets
 * (`io.in(user_<id>).fetchSockets()`), which spans every instance with the Redis adapter. On
 * one instance the decisions of a user are serialised, so they are exact. Across instances,
 * two sockets of one user joining or leaving at the same instant may send a duplicate
 * `user_joined`/`user_left` (never a missing one): a join counts as first when no other socket
 * of the user was in the room before OR after it joined; a leave is decided after leaving.
 * Clients apply the deltas as set operations.
 *
 * Deltas and lists leave through the room's outbox (see `outbox`): in decision order, batched
 * for a few milliseconds in big rooms, so a reconnect storm writes each member a handful of
 * batches instead of one frame per joiner and builds the member list once per batch.
 *
 * Sockets that chose `auth.presence: 'count'` get neither the list nor the deltas: the joining
 * socket gets `presence_count` (the room's users), the members get it again when the count
 * changed, at most once a second (less often above 1 000 sockets), and anyone in the room pages through the list
 * with `list_active_users`. Every other mode costs each joiner a list of the whole room and
 * each member a delta per joiner, so its bytes grow with the square of the room; this one
 * grows linearly (docs/event-day.md).
 */
export class EventPresence {
  private readonly queues = new Map<number, Promise<unknown>>();
  /** per room: the deltas and list requests not sent yet, and when the room's outbox was last sent */
  private readonly outboxes = new Map<string, Outbox>();
  private readonly lastSentAt = new Map<string, number>();
  /** per room: the send in progress (a room's outboxes are sent one after the other) */
  private readonly sending = new Map<string, Promise<void>>();
  /** per room: the pending `presence_count` broadcast, and the last one (when, what) */
  private readonly countTimers = new Map<string, NodeJS.Timeout>();
  private readonly lastCount = new Map<string, { at: number; count: number }>();
  /** list_active_users pages per socket: bursts of PAGE_BURST, PAGE_RATE a second */
  private readonly pages = new TokenBucketLimiter<string>(PAGE_RATE, PAGE_BURST);

  constructor(
    private readonly io: AppServer,
    private readonly countTiming: CountTiming,
  ) {}

  /**
   * Puts the socket into the event room (leaving the one it was in) and sends it the list.
   * Rejoining the room it is in sends the list again and tells nobody.
   */
  join(socket: AppSocket, event: { id: number; slug: string }): Promise<void> {
    return this.serialised(socket.data.user.id, async () => {
      const room = rooms.event(event.id);
      const previous = socket.data.eventId;
      if (previous !== undefined && previous !== event.id) await this.leaveLocked(socket, previous);
      socket.data.eventId = event.id;
      socket.data.eventSlug = event.slug;
      if (!socket.rooms.has(room)) {
        const before = await this.hasOtherSocketIn(socket, room);
        await socket.join(room);
        const after = await this.hasOtherSocketIn(socket, room);
        if (!before || !after)
          this.outbox(room).deltas.push({ event: 'user_joined', payload: presenceUser(socket), except: socket.id });
      }
      // Joined first, listed second: a user arriving in between is either in the list or
      // announced to this socket by user_joined (possibly both; deltas are idempotent).
      const outbox = this.outbox(room);
      outbox.listeners.push(socket);
      await outbox.sent;
    });
  }

  /** leave_event_room: the socket leaves its event room; the room hears of its user's last socket. */
  leave(socket: AppSocket): Promise<void> {
    const eventId = socket.data.eventId;
    if (eventId === undefined) return Promise.resolve();
    return this.serialised(socket.data.user.id, () => this.leaveLocked(socket, eventId));
  }

  /** On 'disconnecting' (the socket is still in its rooms). */
  disconnecting(socket: AppSocket): void {
    const eventId = socket.data.eventId;
    if (eventId === undefined || !socket.rooms.has(rooms.event(eventId))) return;
    const room = rooms.event(eventId);
    const userId = socket.data.user.id;
    void this.serialised(userId, async () => {
      if (!(await this.hasOtherSocketIn(socket, room)))
        this.outbox(room).deltas.push({ event: 'user_left', payload: { userId }, except: socket.id });
    }).catch(() => undefined);
  }

  /**
   * The user left the event (or lost the right to be in it): all of the user's sockets leave
   * the room, on every instance, and the room gets one `user_left` if any of them was in it.
   */
  removeUser(userId: number, eventId: number): Promise<void> {
    const room = rooms.event(eventId);
    return this.serialised(userId, async () => {
      const sockets = await this.io.in(rooms.user(userId)).fetchSockets();
      if (!sockets.some((s) => s.rooms.has(room))) return;
      this.io.in(rooms.user(userId)).socketsLeave(room);
      const outbox = this.outbox(room);
      outbox.deltas.push({ event: 'user_left', payload: { userId }, except: rooms.user(userId) });
      await outbox.sent;
    });
  }

  private async leaveLocked(socket: AppSocket, eventId: number): Promise<void> {
    const room = rooms.event(eventId);
    socket.data.eventId = undefined;
    socket.data.eventSlug = undefined;
    if (!socket.rooms.has(room)) return;
    await socket.leave(room);
    if (!(await this.hasOtherSocketIn(socket, room))) {
      const outbox = this.outbox(room);
      outbox.deltas.push({ event: 'user_left', payload: { userId: socket.data.user.id } });
      await outbox.sent;
    }
  }

  /**
   * list_active_users: the users of the socket's event room by ascending id, `limit` of them
   * after the id `after`, with the room's count. Only a socket in an event room may list it
   * (400 NOT_IN_ROOM); 429 RATE_LIMITED beyond PAGE_BURST pages at once.
   */
  async page(
    socket: AppSocket,
    { after = 0, limit = MAX_PAGE_SIZE }: { after?: number; limit?: number },
  ): Promise<ActiveUsersPage> {
    const eventId = socket.data.eventId;
    if (eventId === undefined || !socket.rooms.has(rooms.event(eventId))) throw new AppError('NOT_IN_ROOM');
    if (!this.pages.take(socket.id)) throw new AppError('RATE_LIMITED');
    const all = (await this.list(rooms.event(eventId))).sort((a, b) => a.userId - b.userId);
    const start = all.findIndex((u) => u.userId > after);
    const users = start === -1 ? [] : all.slice(start, start + limit);
    const last = users[users.length - 1];
    const nextAfter = last !== undefined && start + limit < all.length ? last.userId : null;
    return { users, count: all.length, nextAfter };
  }

  /** Whether another socket of this socket's user is in `room` (all instances). */
  private async hasOtherSocketIn(socket: AppSocket, room: string): Promise<boolean> {
    const mine = await this.io.in(rooms.user(socket.data.user.id)).fetchSockets();
    return mine.some((s) => s.id !== socket.id && s.rooms.has(room));
  }

  /**
   * The room's outbox: presence deltas (in the order they were decided) and the sockets that
   * joined and wait for the member list. It is sent in one go, at most once per
   * roomInterval (src/realtime/room-batches.ts: longer for bigger rooms, at most 100 ms): the deltas in
   * order, then one list, built and encoded once for all of the waiting sockets. In a reconnect
   * storm a member thus gets the deltas of many joins in one write instead of one write each,
   * and n joins cost a bounded number of list builds per second instead of n. The sockets
   * waiting for the list get none of the outbox's deltas: the list, built after them, already
   * says what they say. A room's outboxes are sent one after the other, and a big send yields
   * to the event loop every YIELD_EVERY deliveries, so requests, acks and health checks go on
   * during a storm. `sent` resolves once it was sent (rejects when the list could not be built).
   */
  private outbox(room: string): Outbox {
    const existing = this.outboxes.get(room);
    if (existing) return existing;
    let settle!: (err?: unknown) => void;
    const sent = new Promise<void>(
      (resolve, reject) => (settle = (err) => (err === undefined ? resolve() : reject(err))),
    );
    sent.catch(() => undefined); // a delta-only outbox has nobody awaiting it
    const outbox: Outbox = { deltas: [], listeners: [], sent, settle };
    this.outboxes.set(room, outbox);
    const wait = Math.max(0, (this.lastSentAt.get(room) ?? -Infinity) + roomInterval(this.io, room) - Date.now());
    const send = () => {
      const current = (this.sending.get(room) ?? Promise.resolve()).then(() => this.send(room, outbox));
      this.sending.set(room, current);
      void current.then(() => {
        if (this.sending.get(room) === current) this.sending.delete(room);
      });
    };
    if (wait > 0) setTimeout(send, wait);
    else setImmediate(send);
    return outbox;
  }

  private async send(room: string, outbox: Outbox): Promise<void> {
    this.outboxes.delete(room);
    if (this.lastSentAt.size > 10_000) this.lastSentAt.clear();
    this.lastSentAt.set(room, Date.now());
    try {
      const listening = outbox.listeners.map((s) => s.id);
      let delivered = 0;
      const modes = this.modesIn(room);
      // the sockets that chose one event per change (the default), one broadcast per change
      const notBatched = [...listening, rooms.presenceBatched, rooms.presenceCount];
      for (const { event, payload, except } of modes.deltas ? outbox.deltas : []) {
        const target = this.io.to(room).except(except === undefined ? notBatched : [...notBatched, except]);
        if (event === 'user_joined') target.emit(event, payload as PresenceUser);
        else target.emit(event, payload as { userId: number });
        delivered += roomSize(this.io, room);
        if (delivered >= YIELD_EVERY) {
          delivered = 0;
          await new Promise<void>((resolve) => setImmediate(resolve));
        }
      }
      if (modes.batched && outbox.deltas.length > 0) this.sendBatched(room, outbox.deltas, listening);
      const counting = outbox.listeners.filter((s) => s.rooms.has(rooms.presenceCount));
      const listing = outbox.listeners.filter((s) => !s.rooms.has(rooms.presenceCount));
      // a count broadcast now reaches the waiting `count` sockets too (one message, not two)
      const countSent = modes.count && outbox.deltas.length > 0 && (await this.countChanged(room));
      if (listing.length > 0) {
        const list = await this.list(room);
        const ids = listing.filter((s) => s.connected).map((s) => s.id);
        // one encoding for every waiting socket; socket ids are rooms of this instance
        if (ids.length > 0) this.io.local.to(ids).emit('active_users', list);
      }
      if (counting.length > 0 && !countSent) {
        const count = await this.count(room);
        const ids = counting.filter((s) => s.connected).map((s) => s.id);
        if (ids.length > 0) this.io.local.to(ids).emit('presence_count', { count });
      }
      outbox.settle();
    } catch (err) {
      outbox.settle(err ?? new Error('presence update failed'));
    }
  }

  /**
   * The sockets that chose `auth.presence: 'batched'` get the outbox's changes in one
   * `presence_changes` event, encoded once for the room. A change's `except` is the joining
   * socket (waiting for the list, so listening), a disconnecting socket, or the sockets of a
   * user removed from the room: none of them is a member that should hear of the others.
   */
  private sendBatched(room: string, deltas: Outbox['deltas'], listening: string[]): void {
    const excepts = deltas.flatMap((d) => (d.except === undefined ? [] : [d.except]));
    const changes = deltas.map(
      ({ event, payload }) => ({ event, data: payload }) as PresenceChanges['changes'][number],
    );
    this.io
      .to(room)
      .except([...listening, ...excepts, rooms.presenceDeltas, rooms.presenceCount])
      .emit('presence_changes', { changes });
  }

  /**
   * Which presence modes the room's members use. On one instance, read off the room (once per
   * send): a room of batched sockets skips the per-change broadcasts, each of which would
   * otherwise walk the room and every batched socket of the instance to reach nobody. With other
   * instances (Redis adapter) their members are unknown here, so both are sent.
   */
  private modesIn(room: string): { deltas: boolean; batched: boolean; count: boolean } {
    if (spansInstances(this.io)) return { deltas: true, batched: true, count: true };
    const all = this.io.of('/').adapter.rooms;
    const deltaSockets = all.get(rooms.presenceDeltas);
    const batchedSockets = all.get(rooms.presenceBatched);
    const countSockets = all.get(rooms.presenceCount);
    const modes = { deltas: false, batched: false, count: false };
    for (const id of all.get(room) ?? []) {
      if (deltaSockets?.has(id)) modes.deltas = true;
      else if (batchedSockets?.has(id)) modes.batched = true;
      else if (countSockets?.has(id)) modes.count = true;
      if (modes.deltas && modes.batched && modes.count) break;
    }
    return modes;
  }

  /**
   * The room's count changed (a delta was decided): its `count` members hear the new count now
   * if they last heard one countInterval(room) ago or more (resolves true: the sockets waiting
   * for their first count, already in the room, heard it too), else when that is over. With
   * the Redis adapter each instance sends its own (members may hear one per instance a second).
   * A later broadcast is not sent when the count is the one sent last (a join and a leave in
   * between).
   */
  private async countChanged(room: string): Promise<boolean> {
    if (this.countTimers.has(room)) return false;
    const wait = this.countWait(room);
    if (wait <= 0) {
      await this.broadcastCount(room, true);
      return true;
    }
    this.countLater(room, wait);
    return false;
  }

  /** How long until the room may hear its count again: its interval as the room is now, from the last count. */
  private countWait(room: string): number {
    return (this.lastCount.get(room)?.at ?? -Infinity) + this.countInterval(room) - Date.now();
  }

  /**
   * The room's next count broadcast, `wait` ms from now. Its interval is checked again when it is
   * due: a room that grew meanwhile (a reconnect storm fills it from a few sockets to thousands
   * within a second) waits for its new interval, so a room of n sockets hears its count at most
   * once per n ms (countInterval) while it fills up, not only once it is full.
   */
  private countLater(room: string, wait: number): void {
    const timer = setTimeout(() => {
      const left = this.countWait(room);
      if (left > 0) return this.countLater(room, left);
      this.countTimers.delete(room);
      void this.broadcastCount(room, false).catch(() => undefined); // the next change sends it
    }, wait);
    timer.unref();
    this.countTimers.set(room, timer);
  }

  /** `presence_count` to the room's `count` members (unless unchanged since the last and not `always`). */
  private async broadcastCount(room: string, always: boolean): Promise<void> {
    const count = await this.count(room);
    const previous = this.lastCount.get(room);
    if (this.lastCount.size > 10_000) this.lastCount.clear();
    this.lastCount.set(room, { at: Date.now(), count });
    if (always || previous?.count !== count)
      this.io.to(room).except([rooms.presenceDeltas, rooms.presenceBatched]).emit('presence_count', { count });
  }

  /**
   * The interval (1 s by default), or 1 ms per socket of the room on this instance above 1 000 of
   * them (CountTiming): a room's count broadcasts cost at most ~1 000 frames a second whatever its
   * size (a room of 3 000 hears its count every 3 s at most), so they too grow linearly with the room.
   */
  private countInterval(room: string): number {
    const sockets = roomSize(this.io, room);
    return Math.max(this.countTiming.intervalMs, sockets * this.countTiming.msPerSocket);
  }

  /** How many users are in the room (all instances); on one instance without building the list. */
  private async count(room: string): Promise<number> {
    if (spansInstances(this.io)) return (await this.list(room)).length;
    const sockets = this.io.of('/').sockets;
    const users = new Set<number>();
    for (const id of this.io.of('/').adapter.rooms.get(room) ?? []) {
      const user = sockets.get(id)?.data.user;
      if (user) users.add(user.id);
    }
    return users.size;
  }

  /** Everyone in the room, one entry per user (all instances). */
  private async list(room: string): Promise<PresenceUser[]> {
    const sockets = await this.io.in(room).fetchSockets();
    const users = new Map<number, PresenceUser>();
    for (const s of sockets) {
      const u = s.data.user;
      if (u && !users.has(u.id)) users.set(u.id, { userId: u.id, username: u.username, avatar: u.avatar });
    }
    return [...users.values()];
  }

  /** Runs the presence decisions of one user one after the other (this instance). */
  private serialised<T>(userId: number, fn: () => Promise<T>): Promise<T> {
    const previous = this.queues.get(userId) ?? Promise.resolve();
    const next = previous.then(fn, fn);
    const settled = next.catch(() => undefined);
    this.queues.set(userId, settled);
    void settled.then(() => {
      if (this.queues.get(userId) === settled) this.queues.delete(userId);
    });
    return next;
  }
}

/** The shortest time between two `presence_count` broadcasts to a room: config.realtime.presenceCount. */
export interface CountTiming {
  intervalMs: number;
  msPerSocket: number;
}
/** list_active_users pages: a socket may ask PAGE_BURST at once (a room of 6 000), then PAGE_RATE a second */
const PAGE_RATE = 10;
const PAGE_BURST = 60;

interface Outbox {
  deltas: { event: 'user_joined' | 'user_left'; payload: PresenceUser | { userId: number }; except?: string }[];
  /** sockets that joined and wait for `active_users` */
  listeners: AppSocket[];
  sent: Promise<void>;
  settle(err?: unknown): void;
}

function presenceUser(socket: AppSocket): PresenceUser {
  const u = socket.data.user;
  return { userId: u.id, username: u.username, avatar: u.avatar };
}

const presences = new WeakMap<AppServer, EventPresence>();

/**
 * The presence of a Socket.IO server (one per server, shared by its sockets' handlers).
 * src/http-server.ts creates it with the configured count timing before any socket connects;
 * the handlers only look it up.
 */
export function eventPresence(io: AppServer, countTiming?: CountTiming): EventPresence {
  let presence = presences.get(io);
  if (!presence) {
    if (!countTiming) throw new Error('the presence of this server was not created (src/http-server.ts creates it)');
    presence = new EventPresence(io, countTiming);
    presences.set(io, presence);
  }
  return presence;
}

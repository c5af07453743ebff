import type { Server as HttpServer } from 'node:http';
import { Server } from 'socket.io';
import type { Container } from '../container.js';
import type { Actor } from '../lib/actor.js';
import { bearerToken } from '../lib/auth.js';
import { AppError } from '../lib/errors.js';
import { LoopLag } from '../lib/loop-lag.js';
import type { Logger } from '../lib/logger.js';
import type { Metrics } from '../lib/metrics.js';
import { toAppError } from '../middleware/error-handler.js';
import type { InputDeclaration, InputOf, InputShape, PayloadDeclaration } from '../middleware/input.js';
import { socketInputGuard } from '../middleware/input-guard.js';
import type { Ack, ClientToServerEvents, PresenceMode } from './types.js';
import { rooms } from './types.js';
import { corkWebSocketWrites } from './corked-writes.js';
import { createResilientAdapter } from './redis-adapter.js';
import { roomSize } from './room-batches.js';

import type { AppServer, AppSocket } from './types.js';

export type { AppServer, AppSocket };

/**
 * A feature's socket handlers: called once per authenticated connection with the services
 * they call (`<Feature>SocketDeps`, like a router factory's `<Feature>RouterDeps`), never the
 * whole container. src/realtime/registrars.ts binds each to its dependencies.
 */
export type SocketRegistrar<Deps> = (io: AppServer, socket: AppSocket, deps: Deps) => void;

/** A registrar bound to its dependencies: what attachRealtime calls per connection. */
export type BoundSocketRegistrar = (io: AppServer, socket: AppSocket) => void;

/** The actor of a socket event: the socket's user, its address, the event name as "method". */
export function socketActor(socket: AppSocket, event: string): Actor {
  const user = socket.data.user;
  return {
    user,
    userId: user.id,
    username: user.username,
    ip: socket.handshake.address ?? null,
    method: 'SOCKET',
    path: event,
  };
}

/** What handle() reports to: the logger (unexpected errors) and the metrics (messages, joins). */
export interface SocketEdge {
  logger: Logger;
  metrics: Metrics;
}

/**
 * A socket payload validated with its input declaration (the feature's `<feature>.schemas.ts`;
 * a one-value payload with its definePayload declaration). An acknowledgement carries no `details`, so a refusal's message is the first field's
 * (e.g. "matchId must be a positive integer"), code VALIDATION_ERROR.
 */
export async function parsePayload<S extends InputShape>(
  declaration: InputDeclaration<S>,
  payload: unknown,
): Promise<InputOf<InputDeclaration<S>>>;
export async function parsePayload<T>(declaration: PayloadDeclaration<T>, payload: unknown): Promise<T>;
export async function parsePayload(
  declaration: InputDeclaration<InputShape> | PayloadDeclaration<unknown>,
  payload: unknown,
): Promise<unknown> {
  try {
    return await declaration.parse(payload);
  } catch (err) {
    const first = err instanceof AppError ? err.details?.[0] : undefined;
    if (first) throw new AppError('VALIDATION_ERROR', { message: first.message, details: (err as AppError).details });
    throw err;
  }
}

/**
 * Registers the client→server handler of `event` with the acknowledgement convention:
 * ack({ success: true, data }) or ack({ success: false, error, code }); without an ack callback,
 * errors are emitted as `error_message`. Unexpected errors never reach the client verbatim (same
 * mapping as HTTP). Every received message is counted by event name, and a handler that put the
 * socket into a room it was not in counts as a join under that event name.
 */
export function handle<A extends unknown[]>(
  socket: AppSocket,
  event: keyof ClientToServerEvents,
  fn: (...args: A) => Promise<unknown> | unknown,
  { logger, metrics }: SocketEdge,
): void {
  const listener = async (...raw: unknown[]): Promise<void> => {
    metrics.socketMessageReceived(event);
    const last = raw[raw.length - 1];
    const ack = typeof last === 'function' ? (last as Ack) : undefined;
    const args = (ack ? raw.slice(0, -1) : raw) as A;
    const roomsBefore = new Set(socket.rooms);
    try {
      const data = await fn(...args);
      if ([...socket.rooms].some((room) => !roomsBefore.has(room))) metrics.socketJoined(event);
      ack?.(data === undefined ? { success: true } : { success: true, data });
    } catch (err) {
      const appError = toAppError(err);
      // one line per failure; a 503 (database down, pool exhausted) at warn without a stack (issue 16)
      if (appError.status === 503)
        logger.warn({ code: appError.code, socketId: socket.id }, 'socket handler failed: service unavailable');
      else if (appError.status >= 500) logger.error({ err, socketId: socket.id }, 'socket handler failed');
      if (ack) ack({ success: false, error: appError.message, code: appError.code });
      else socket.emit('error_message', { error: appError.message });
    }
  };
  socket.on(event, listener as never);
}

/**
 * Attaches Socket.IO to the HTTP server (same port, path /socket.io) and binds the
 * container's notifier to it. The handshake carries the JWT in `auth.token` or an
 * `Authorization: Bearer` header and is checked by the same authenticator as HTTP requests.
 * Every socket joins `user_<id>` at the handshake; a user has at most
 * `config.realtime.maxSocketsPerUser` sockets per instance (more → connect_error "Too many
 * connections for this user", `data.code` TOO_MANY_CONNECTIONS).
 */
export function attachRealtime(
  httpServer: HttpServer,
  container: Container,
  registrars: BoundSocketRegistrar[],
): AppServer {
  const { config, redis, tokens, notifier, metrics, logger } = container;
  const io: AppServer = new Server(httpServer, {
    path: '/socket.io',
    cors: { origin: config.corsOrigins, credentials: true },
    maxHttpBufferSize: 100_000,
    connectionStateRecovery: undefined,
  });
  corkWebSocketWrites(io);
  // With REDIS_URL, broadcasts reach the sockets of every service instance.
  // Redis down or frozen: local sockets only, never a hang (src/realtime/redis-adapter.ts, issue 23).
  if (redis.enabled) io.adapter(createResilientAdapter(redis, { key: `${redis.keyPrefix}socket.io` }));

  // A lagging event loop (a reconnect storm on a starved machine): handshakes are refused before
  // any work (no token check, no database), so clients back off instead of queueing handshakes
  // that their connect timeout throws away; logged once per episode.
  const lag = new LoopLag(config.realtime.shedLagMs);
  httpServer.once('close', () => lag.stop());
  let shed = 0;
  io.use((_socket, next) => {
    if (!lag.lagging) {
      if (shed > 0) logger.info({ refused: shed }, 'event loop caught up: socket handshakes accepted again');
      shed = 0;
      return next();
    }
    if (shed++ === 0)
      logger.warn(
        { lagMs: Math.round(lag.lagMs) },
        'event loop lagging: socket handshakes refused (SERVICE_UNAVAILABLE)',
      );
    next(handshakeRefusal(new AppError('SERVICE_UNAVAILABLE')));
  });

  io.use(async (socket, next) => {
    const auth = socket.handshake.auth as { token?: unknown; presence?: unknown } | undefined;
    const presence = presenceMode(auth?.presence);
    if (presence === undefined)
      return next(
        handshakeRefusal(
          new AppError('VALIDATION_ERROR', { message: "auth.presence must be 'deltas', 'batched' or 'count'" }),
        ),
      );
    const fromAuth = auth?.token;
    const header = socket.handshake.headers.authorization;
    let token: string | undefined;
    if (typeof fromAuth === 'string' && fromAuth.length > 0) token = fromAuth.replace(/^Bearer\s+/i, '');
    else if (header) token = bearerToken(header) ?? 'malformed';
    // issue 23: every handshake refusal carries data.code (AUTH_REQUIRED, INVALID_TOKEN, TOO_MANY_CONNECTIONS, SERVICE_UNAVAILABLE, VALIDATION_ERROR)
    if (!token) return next(handshakeRefusal(new AppError('AUTH_REQUIRED')));
    try {
      const { user, session } = await tokens.authenticateSession(token);
      socket.data.user = user;
      socket.data.session = session;
    } catch (err) {
      // an unreachable database is not a bad token; the client can retry
      const appError = toAppError(err);
      const known = appError.status === 401 || appError.status === 503;
      const refusal = new Error(known ? appError.message : 'Invalid or expired token');
      (refusal as Error & { data?: unknown }).data = { code: known ? appError.code : 'INVALID_TOKEN' };
      return next(refusal);
    }
    // At most config.realtime.maxSocketsPerUser sockets per user on this instance: counted and
    // joined in one synchronous step, so parallel handshakes cannot overshoot. A handshake that
    // fails later is cleaned up by Socket.IO (its rooms are left).
    const userRoom = rooms.user(socket.data.user.id);
    if (roomSize(io, userRoom) >= config.realtime.maxSocketsPerUser) {
      return next(handshakeRefusal(new AppError('TOO_MANY_CONNECTIONS')));
    }
    void socket.join([userRoom, presenceRooms[presence]]);
    next();
  });

  io.on('connection', (socket) => {
    metrics.socketConnected();
    socket.on('disconnect', () => metrics.socketDisconnected());
    socket.use(socketInputGuard(socket)); // NUL in a payload: refused before any handler (issue 13)
    socket.use(unknownEventGuard(socket)); // an event nobody handles gets an answer (issue 23)
    // an expired token: every event refused; a revoked session or a lost role: room joins refused
    socket.use(
      (packet, next) =>
        void checkSession(socket, packet, container).then(
          () => next(),
          () => undefined,
        ),
    );
    disconnectAtExpiry(socket, container);
    for (const register of registrars) register(io, socket);
  });

  notifier.bind(io);
  return io;
}

/** A refused handshake as socket.io-client sees it: `connect_error` with the message and `data.code`. */
function handshakeRefusal(refused: AppError): Error {
  return Object.assign(new Error(refused.message), { data: { code: refused.code } });
}

/** `auth.presence` of a handshake: absent means the default, one event per change. */
function presenceMode(value: unknown): PresenceMode | undefined {
  if (value === undefined || value === null || value === 'deltas') return 'deltas';
  // the modes are the keys of presenceRooms
  return typeof value === 'string' && Object.hasOwn(presenceRooms, value) ? (value as PresenceMode) : undefined;
}

/** The room that marks a socket's presence mode (src/modules/chat/chat.presence.ts). */
const presenceRooms: Record<PresenceMode, string> = {
  deltas: rooms.presenceDeltas,
  batched: rooms.presenceBatched,
  count: rooms.presenceCount,
};

/**
 * A client→server event that no handler is registered for (a typo, an old or newer client):
 * with an acknowledgement → `{ success: false, error: "Unknown event", code: "UNKNOWN_EVENT" }`
 * at once; without one → `error_message` `{ error: "Unknown event" }` (DECISIONS "Reliability").
 */
function unknownEventGuard(socket: AppSocket) {
  return (packet: unknown[], next: (err?: Error) => void): void => {
    const event = packet[0];
    if (typeof event === 'string' && socket.listenerCount(event as never) > 0) return next();
    const { message: error, code } = new AppError('UNKNOWN_EVENT');
    const ack = packet[packet.length - 1];
    if (packet.length > 1 && typeof ack === 'function') (ack as Ack)({ success: false, error, code });
    else socket.emit('error_message', { error });
  };
}

/** Largest delay setTimeout accepts (about 24.8 days); a longer-lived token is re-armed. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Disconnects the socket when its handshake token expires, so it stops receiving too. */
function disconnectAtExpiry(socket: AppSocket, { clock }: Container): void {
  let timer: NodeJS.Timeout;
  const arm = () => {
    const left = socket.data.session.expiresAt - clock.now().getTime();
    if (left <= 0) return void socket.disconnect(true);
    timer = setTimeout(arm, Math.min(left, MAX_TIMER_MS));
    timer.unref();
  };
  arm();
  socket.once('disconnect', () => clearTimeout(timer));
}

/**
 * Runs before every client→server event of a connected socket: once the handshake token
 * expired, every event is refused (ack `{ success: false, error: "Invalid or expired token" }`)
 * and the socket is disconnected. Room joins (`join_*`) are throttled per socket (a token bucket,
 * config `realtime.roomJoins`; 429 ROOM_JOIN_THROTTLED) and reload the user, so they see the
 * current role and are refused after the session was revoked (password change or reset). The
 * promise rejects when the event must not run.
 */
async function checkSession(
  socket: AppSocket,
  packet: unknown[],
  { tokens, clock, roomJoinLimit }: Container,
): Promise<void> {
  const { session } = socket.data;
  try {
    if (clock.now().getTime() >= session.expiresAt) throw new AppError('INVALID_TOKEN');
    if (typeof packet[0] === 'string' && packet[0].startsWith('join_')) {
      // throttled before any database work: a flood of joins costs no queries
      if (!roomJoinLimit.take(socket.id)) throw new AppError('ROOM_JOIN_THROTTLED');
      socket.data.user = await tokens.currentUser(session);
    }
  } catch (err) {
    const appError = toAppError(err);
    const ack = packet[packet.length - 1];
    if (typeof ack === 'function') (ack as Ack)({ success: false, error: appError.message, code: appError.code });
    else socket.emit('error_message', { error: appError.message });
    if (appError.code === 'INVALID_TOKEN') socket.disconnect(true);
    throw appError;
  }
}

/** Disconnects every socket and closes the Socket.IO server. */
export async function closeRealtime(io: AppServer): Promise<void> {
  io.disconnectSockets(true);
  await new Promise<void>((resolve) => io.close(() => resolve()));
}

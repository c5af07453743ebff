import type { Server as HttpServer } from 'node:http';
import { createAdapter } from '@socket.io/redis-adapter';
import { Server, type Socket } from 'socket.io';
import type { Container } from '../container.js';
import type { Actor } from '../lib/actor.js';
import { bearerToken } from '../lib/auth.js';
import type { Logger } from '../lib/logger.js';
import { toAppError } from '../middleware/error-handler.js';
import { socketInputGuard } from '../middleware/input-guard.js';
import type {
  Ack,
  ClientToServerEvents,
  InterServerEvents,
  ServerToClientEvents,
  SocketData,
} from './types.js';
import { rooms } from './types.js';

export type AppServer = Server<ClientToServerEvents, ServerToClientEvents, InterServerEvents, SocketData>;
export type AppSocket = Socket<ClientToServerEvents, ServerToClientEvents, InterServerEvents, SocketData>;

/** A feature's socket handlers: called once per authenticated connection. */
export type SocketRegistrar = (io: AppServer, socket: AppSocket, container: Container) => void;

/** The actor of a socket event: the socket's user, its address, the event name as "method". */
export function socketActor(socket: AppSocket, event: string): Actor {
  const user = socket.data.user;
  return { userId: user.id, username: user.username, ip: socket.handshake.address ?? null, method: 'SOCKET', path: event };
}

/**
 * Wraps a client→server handler with the acknowledgement convention: ack({ success: true, data })
 * or ack({ success: false, error, code }); without an ack callback, errors are emitted as
 * `error_message`. Unexpected errors never reach the client verbatim (same mapping as HTTP).
 */
export function handle<A extends unknown[]>(
  socket: AppSocket,
  fn: (...args: A) => Promise<unknown> | unknown,
  logger?: Logger,
) {
  return async (...raw: unknown[]): Promise<void> => {
    const last = raw[raw.length - 1];
    const ack = typeof last === 'function' ? (last as Ack) : undefined;
    const args = (ack ? raw.slice(0, -1) : raw) as A;
    try {
      const data = await fn(...args);
      ack?.(data === undefined ? { success: true } : { success: true, data });
    } catch (err) {
      const appError = toAppError(err);
      // one line per failure; a 503 (database down, pool exhausted) at warn without a stack (issue 16)
      if (appError.status === 503) logger?.warn({ code: appError.code, socketId: socket.id }, 'socket handler failed: service unavailable');
      else if (appError.status >= 500) logger?.error({ err, socketId: socket.id }, 'socket handler failed');
      if (ack) ack({ success: false, error: appError.message, code: appError.code });
      else socket.emit('error_message', { error: appError.message });
    }
  };
}

/**
 * Attaches Socket.IO to the HTTP server (same port, path /socket.io) and binds the
 * container's notifier to it. The handshake carries the JWT in `auth.token` or an
 * `Authorization: Bearer` header and is checked by the same authenticator as HTTP requests.
 * Every socket joins `user_<id>`.
 */
export function attachRealtime(httpServer: HttpServer, container: Container, registrars: SocketRegistrar[]): AppServer {
  const { config, redis, tokens, notifier } = container;
  const io: AppServer = new Server(httpServer, {
    path: '/socket.io',
    cors: { origin: config.corsOrigins, credentials: true },
    maxHttpBufferSize: 100_000,
    connectionStateRecovery: undefined,
  });
  // With REDIS_URL, broadcasts reach the sockets of every service instance.
  if (redis.enabled) io.adapter(createAdapter(redis.command(), redis.subscriber()));

  io.use(async (socket, next) => {
    const fromAuth = (socket.handshake.auth as { token?: unknown } | undefined)?.token;
    const header = socket.handshake.headers.authorization;
    let token: string | undefined;
    if (typeof fromAuth === 'string' && fromAuth.length > 0) token = fromAuth.replace(/^Bearer\s+/i, '');
    else if (header) token = bearerToken(header) ?? 'malformed';
    if (!token) return next(new Error('Authentication required'));
    try {
      socket.data.user = await tokens.authenticate(token);
      next();
    } catch (err) {
      // issue 16: an unreachable database is not a bad token; the client can retry
      const appError = toAppError(err);
      const known = appError.status === 401 || appError.status === 503;
      const refusal = new Error(known ? appError.message : 'Invalid or expired token');
      (refusal as Error & { data?: unknown }).data = { code: known ? appError.code : 'INVALID_TOKEN' };
      next(refusal);
    }
  });

  io.on('connection', (socket) => {
    void socket.join(rooms.user(socket.data.user.id));
    socket.use(socketInputGuard(socket)); // NUL in a payload: refused before any handler (issue 13)
    for (const register of registrars) register(io, socket, container);
  });

  notifier.bind(io);
  return io;
}

/** Disconnects every socket and closes the Socket.IO server. */
export async function closeRealtime(io: AppServer): Promise<void> {
  io.disconnectSockets(true);
  await new Promise<void>((resolve) => io.close(() => resolve()));
}


import type { Server as HttpServer } from 'node:http';
import { createAdapter } from '@socket.io/redis-adapter';
import { Server, type Socket } from 'socket.io';
import { config } from '../config/index.js';
import { authenticateToken, bearerToken } from '../lib/auth.js';
import { AppError } from '../lib/errors.js';
import { logger } from '../lib/logger.js';
import { redisCommandClient, redisEnabled, redisSubscriberClient } from '../lib/redis.js';
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
export type SocketRegistrar = (io: AppServer, socket: AppSocket) => void;

let current: AppServer | undefined;

/** The attached Socket.IO server, or undefined (e.g. in HTTP-only tests). */
export function getIO(): AppServer | undefined {
  return current;
}

/**
 * Emits to a room after the caller's transaction committed. Never throws: a failed
 * broadcast must not fail the request that caused it.
 */
export function emitToRoom<E extends keyof ServerToClientEvents>(
  room: string,
  event: E,
  ...args: Parameters<ServerToClientEvents[E]>
): void {
  try {
    current?.to(room).emit(event, ...args);
  } catch (err) {
    logger.warn({ err, room, event }, 'socket broadcast failed');
  }
}

export function emitToUser<E extends keyof ServerToClientEvents>(
  userId: number,
  event: E,
  ...args: Parameters<ServerToClientEvents[E]>
): void {
  emitToRoom(rooms.user(userId), event, ...args);
}

/**
 * Wraps a client→server handler with the acknowledgement convention of DECISIONS.md:
 * ack({ success: true, data }) or ack({ success: false, error }); without an ack callback,
 * errors are emitted as `error_message`. Unexpected errors never reach the client verbatim.
 */
export function handle<A extends unknown[]>(
  socket: AppSocket,
  fn: (...args: A) => Promise<unknown> | unknown,
) {
  return async (...raw: unknown[]): Promise<void> => {
    const last = raw[raw.length - 1];
    const ack = typeof last === 'function' ? (last as Ack) : undefined;
    const args = (ack ? raw.slice(0, -1) : raw) as A;
    try {
      const data = await fn(...args);
      ack?.(data === undefined ? { success: true } : { success: true, data });
    } catch (err) {
      const message = err instanceof AppError ? err.message : 'Internal server error';
      if (!(err instanceof AppError)) logger.error({ err, socketId: socket.id }, 'socket handler failed');
      if (ack) ack({ success: false, error: message });
      else socket.emit('error_message', { error: message });
    }
  };
}

/**
 * Attaches Socket.IO to the HTTP server (same port, path /socket.io). The handshake carries
 * the JWT in `auth.token` or an `Authorization: Bearer` header and is checked by the same
 * function as HTTP requests. Every socket joins `user_<id>`.
 */
export function attachRealtime(httpServer: HttpServer, registrars: SocketRegistrar[]): AppServer {
  const io: AppServer = new Server(httpServer, {
    path: '/socket.io',
    cors: { origin: config.corsOrigins, credentials: true },
    maxHttpBufferSize: 100_000,
    connectionStateRecovery: undefined,
  });
  // With REDIS_URL, broadcasts reach the sockets of every service instance.
  if (redisEnabled()) io.adapter(createAdapter(redisCommandClient(), redisSubscriberClient()));

  io.use(async (socket, next) => {
    const fromAuth = (socket.handshake.auth as { token?: unknown } | undefined)?.token;
    const header = socket.handshake.headers.authorization;
    let token: string | undefined;
    if (typeof fromAuth === 'string' && fromAuth.length > 0) token = fromAuth.replace(/^Bearer\s+/i, '');
    else if (header) token = bearerToken(header) ?? 'malformed';
    if (!token) return next(new Error('Authentication required'));
    try {
      socket.data.user = await authenticateToken(token);
      next();
    } catch (err) {
      next(new Error(err instanceof AppError && err.status === 401 ? err.message : 'Invalid or expired token'));
    }
  });

  io.on('connection', (socket) => {
    void socket.join(rooms.user(socket.data.user.id));
    for (const register of registrars) register(io, socket);
  });

  current = io;
  return io;
}

export async function closeRealtime(): Promise<void> {
  const io = current;
  current = undefined;
  if (!io) return;
  io.disconnectSockets(true);
  await new Promise<void>((resolve) => io.close(() => resolve()));
}

import { io as ioClient, type Socket } from 'socket.io-client';
import type { AckResponse, ClientToServerEvents, ServerToClientEvents } from '../../src/realtime/types';
import { checkSocketAck, checkSocketEvent, pendingSocketProblems } from './contract';

export type ClientSocket = Socket<ServerToClientEvents, ClientToServerEvents>;

/** A connected Socket.IO client authenticated with `token`; rejects with the connect_error message. */
export function connectSocket(
  url: string,
  token?: string,
  options: { header?: boolean; auth?: Record<string, unknown> } = {},
): Promise<ClientSocket> {
  return new Promise((resolve, reject) => {
    const socket: ClientSocket = ioClient(url, {
      path: '/socket.io',
      transports: ['websocket'],
      reconnection: false,
      forceNew: true,
      ...(options.header
        ? { extraHeaders: token ? { Authorization: `Bearer ${token}` } : {} }
        : { auth: { ...(token ? { token } : {}), ...options.auth } }),
    });
    // Contract check: every payload the client receives must match its schema in the
    // document's x-socket-io section; a mismatch fails the running test (tests/setup/after-env.ts).
    socket.onAny((event: string, payload: unknown) => {
      const problem = checkSocketEvent(event, payload);
      if (problem) pendingSocketProblems.push(problem);
    });
    const timer = setTimeout(() => {
      socket.close();
      reject(new Error('socket connect timeout'));
    }, 5000);
    socket.once('connect', () => {
      clearTimeout(timer);
      resolve(socket);
    });
    socket.once('connect_error', (err) => {
      clearTimeout(timer);
      socket.close();
      reject(err);
    });
  });
}

/**
 * For a test file or describe block: `connect(user or token, auth?)` opens an authenticated
 * socket to the server at `url()` (read when connecting, so a server started in beforeAll
 * works), with `auth` added to the handshake's; every socket it opened is closed after the block.
 */
export function useSocketClients(
  url: () => string,
): (user: { token: string } | string, auth?: Record<string, unknown>) => Promise<ClientSocket> {
  const sockets: ClientSocket[] = [];
  afterAll(() => {
    for (const s of sockets.splice(0)) s.close();
  });
  return async (user, auth) => {
    const socket = await connectSocket(url(), typeof user === 'string' ? user : user.token, { auth });
    sockets.push(socket);
    return socket;
  };
}

/** Resolves with the next payload of `event`, or rejects after `timeoutMs`. */
export function nextEvent<T = unknown>(
  socket: ClientSocket,
  event: keyof ServerToClientEvents,
  timeoutMs = 3000,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.off(event, listener as never);
      reject(new Error(`timeout waiting for ${String(event)}`));
    }, timeoutMs);
    const listener = (payload: T) => {
      clearTimeout(timer);
      resolve(payload);
    };
    socket.once(event, listener as never);
  });
}

/** Resolves true if `event` arrives within `ms`, false otherwise (to prove something was NOT received). */
export function receivesWithin(socket: ClientSocket, event: keyof ServerToClientEvents, ms = 500): Promise<boolean> {
  return nextEvent(socket, event, ms).then(
    () => true,
    () => false,
  );
}

/** Emits with an acknowledgement callback and resolves with the ack payload. */
export function emitAck<T = unknown>(
  socket: ClientSocket,
  event: keyof ClientToServerEvents,
  ...args: unknown[]
): Promise<AckResponse<T>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ack for ${String(event)}`)), 5000);
    (socket.emit as (...a: unknown[]) => void)(event, ...args, (response: AckResponse<T>) => {
      clearTimeout(timer);
      const problem = checkSocketAck(String(event), response);
      if (problem) reject(new Error(`Socket.IO contract: ${problem}`));
      else resolve(response);
    });
  });
}

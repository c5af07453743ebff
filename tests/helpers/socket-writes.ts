import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server, type Socket as ServerSocket } from 'socket.io';
import { io as ioClient, type Socket as ClientSocket } from 'socket.io-client';
import { corkWebSocketWrites } from '../../src/realtime/corked-writes';

interface RawSocket {
  _write: (...args: unknown[]) => unknown;
  _writev: (...args: unknown[]) => unknown;
}

export interface CountedConnection {
  io: Server;
  client: ClientSocket;
  serverSocketId: string;
  /** the system calls that wrote to the server's side of the connection (every `_write`/`_writev` is one) */
  writes: () => number;
  close: () => Promise<void>;
}

/**
 * A bare Socket.IO server (with the service's corked writes, or without) and one WebSocket
 * client connected to it, the writes of the server's TCP socket of that connection counted
 * (tests/performance/corked-writes.test.ts, tests/performance/room-batches.test.ts).
 * `onConnection` runs on the server's socket before the count starts (joining a room, say).
 */
export async function countedConnection(options: {
  corked: boolean;
  onConnection?: (socket: ServerSocket) => void;
}): Promise<CountedConnection> {
  const httpServer = createServer();
  const io = new Server(httpServer);
  if (options.corked) corkWebSocketWrites(io);
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  const { port } = httpServer.address() as AddressInfo;
  const connected = new Promise<string>((resolve) =>
    io.on('connection', (s) => {
      options.onConnection?.(s);
      resolve(s.id);
    }),
  );
  const client = ioClient(`http://127.0.0.1:${port}`, {
    transports: ['websocket'],
    reconnection: false,
    forceNew: true,
  });
  const serverSocketId = await connected;
  await new Promise<void>((resolve) => (client.connected ? resolve() : client.once('connect', () => resolve())));
  const conn = io.of('/').sockets.get(serverSocketId)!.conn as unknown as {
    transport: { socket: { _socket: RawSocket } };
  };
  const raw = conn.transport.socket._socket;
  let writes = 0;
  for (const method of ['_write', '_writev'] as const) {
    const original = raw[method];
    raw[method] = function (this: unknown, ...args: unknown[]) {
      writes++;
      return original.apply(this, args);
    };
  }
  return {
    io,
    client,
    serverSocketId,
    writes: () => writes,
    close: async () => {
      client.close();
      await new Promise<void>((resolve) => io.close(() => resolve()));
    },
  };
}

import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from 'socket.io';
import { io as ioClient, type Socket as ClientSocket } from 'socket.io-client';
import { corkWebSocketWrites } from '../../src/realtime/corked-writes';

interface RawSocket {
  _write: (...args: unknown[]) => unknown;
  _writev: (...args: unknown[]) => unknown;
}

/**
 * src/realtime/corked-writes.ts: the frames engine.io sends to one WebSocket together reach the
 * kernel in one write (a member of a big room gets many presence deltas at once in a storm).
 * Counted at the server's TCP socket: every `_write`/`_writev` is one system call.
 */
describe('frames sent to one WebSocket together', () => {
  let httpServer: HttpServer;
  let io: Server;
  let client: ClientSocket;

  async function start(corked: boolean): Promise<{ writes: () => number; serverSocketId: string }> {
    httpServer = createServer();
    io = new Server(httpServer);
    if (corked) corkWebSocketWrites(io);
    await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
    const { port } = httpServer.address() as AddressInfo;
    const connected = new Promise<string>((resolve) => io.on('connection', (s) => resolve(s.id)));
    client = ioClient(`http://127.0.0.1:${port}`, { transports: ['websocket'], reconnection: false, forceNew: true });
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
    return { writes: () => writes, serverSocketId };
  }

  afterEach(async () => {
    client?.close();
    await new Promise<void>((resolve) => io.close(() => resolve()));
  });

  async function burst(count: number, serverSocketId: string): Promise<number[]> {
    const received: number[] = [];
    const all = new Promise<void>((resolve) =>
      client.on('tick', (n: number) => {
        received.push(n);
        if (received.length === count) resolve();
      }),
    );
    const socket = io.of('/').sockets.get(serverSocketId)!;
    for (let n = 0; n < count; n++) socket.emit('tick', n);
    await all;
    return received;
  }

  it('thirty events emitted in one turn arrive in order in one write', async () => {
    const { writes, serverSocketId } = await start(true);
    const received = await burst(30, serverSocketId);
    expect(received).toEqual(Array.from({ length: 30 }, (_, n) => n));
    expect(writes()).toBe(1);
  });

  it('thirty broadcasts from thirty callbacks of one turn of the loop reach the kernel in one write', async () => {
    const { writes, serverSocketId } = await start(true);
    const received: number[] = [];
    const all = new Promise<void>((resolve) =>
      client.on('tick', (n: number) => {
        received.push(n);
        if (received.length === 30) resolve();
      }),
    );
    const socket = io.of('/').sockets.get(serverSocketId)!;
    // thirty separate broadcasts, as thirty requests finishing in one turn of the loop send them:
    // the immediates queued before a check phase all run in it, each its own callback (ticks run
    // between them), and the release the first one queues runs in the next turn. Timers of 0 ms
    // were not deterministic: created across a millisecond boundary on a loaded machine, some
    // were due only in a later turn (CI once counted 3 writes).
    for (let n = 0; n < 30; n++) setImmediate(() => io.to(serverSocketId).emit('tick', n));
    await all;
    expect(received).toEqual(Array.from({ length: 30 }, (_, n) => n));
    expect(socket.connected).toBe(true);
    expect(writes()).toBe(1);
  });

  it('without it each frame is a write of its own (what the test above would see)', async () => {
    const { writes, serverSocketId } = await start(false);
    const received = await burst(30, serverSocketId);
    expect(received).toEqual(Array.from({ length: 30 }, (_, n) => n));
    expect(writes()).toBeGreaterThan(20);
  });
});

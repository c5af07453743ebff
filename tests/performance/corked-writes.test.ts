import type { Server } from 'socket.io';
import type { Socket as ClientSocket } from 'socket.io-client';
import { countedConnection, type CountedConnection } from '../helpers/socket-writes';

/**
 * src/realtime/corked-writes.ts: the frames engine.io sends to one WebSocket together reach the
 * kernel in one write (a member of a big room gets many presence deltas at once in a storm).
 * Counted at the server's TCP socket: every `_write`/`_writev` is one system call.
 */
describe('frames sent to one WebSocket together', () => {
  let connection: CountedConnection;
  let io: Server;
  let client: ClientSocket;

  async function start(corked: boolean): Promise<{ writes: () => number; serverSocketId: string }> {
    connection = await countedConnection({ corked });
    ({ io, client } = connection);
    return connection;
  }

  afterEach(() => connection?.close());

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

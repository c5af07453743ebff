import { createLogger } from '../../src/lib/logger';
import { Notifier } from '../../src/realtime/notifier';
import { RoomBatches } from '../../src/realtime/room-batches';
import type { AppServer } from '../../src/realtime/types';
import { countedConnection, type CountedConnection } from '../helpers/socket-writes';

const ROOM = 'event_1';
const INTERVAL_MS = 1000;
const heats = (userId: number) => ({ userId, username: `dancer${userId}`, heats: [] });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * src/realtime/room-batches.ts through Notifier.toRoomBatched: the batched notices of a room
 * (`heats_updated`) leave at most once per interval, together, so a burst of them reaches each
 * member in a few writes instead of one each. A real Socket.IO server with corked writes, as the
 * service runs it, and a real client; the writes are counted at the server's TCP socket.
 */
describe('batched room notices', () => {
  let connection: CountedConnection;
  let notifier: Notifier;
  let received: { userId: number; at: number }[];

  beforeEach(async () => {
    connection = await countedConnection({ corked: true, onConnection: (s) => void s.join(ROOM) });
    notifier = new Notifier(createLogger('silent'), () => INTERVAL_MS);
    notifier.bind(connection.io as unknown as AppServer);
    received = [];
    connection.client.on('heats_updated', (payload: { userId: number }) =>
      received.push({ userId: payload.userId, at: performance.now() }),
    );
  });

  afterEach(async () => {
    notifier.unbind();
    await connection?.close();
  });

  const until = async (count: number, timeoutMs = 5000) => {
    const end = performance.now() + timeoutMs;
    while (received.length < count && performance.now() < end) await sleep(5);
    return received;
  };

  it('ten notices sent from ten turns of the loop reach a member in order in two writes', async () => {
    for (let n = 1; n <= 10; n++) {
      notifier.toRoomBatched(ROOM, 'heats_updated', heats(n));
      await sleep(5);
    }
    const got = await until(10);
    expect(got.map((r) => r.userId)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    // the first leaves at once, the other nine together; Notifier.toRoom writes each on its own: ten
    expect(connection.writes()).toBeLessThanOrEqual(2);
  });

  it('the first notice after a quiet spell leaves at once, the next ones when the interval ends', async () => {
    const sentAt = performance.now();
    notifier.toRoomBatched(ROOM, 'heats_updated', heats(1));
    await until(1);
    notifier.toRoomBatched(ROOM, 'heats_updated', heats(2));
    notifier.toRoomBatched(ROOM, 'heats_updated', heats(3));
    const [first, second, third] = await until(3);
    expect(first.at - sentAt).toBeLessThan(INTERVAL_MS / 2);
    expect(second.at - sentAt).toBeGreaterThanOrEqual(INTERVAL_MS * 0.9);
    expect(third.userId).toBe(3);
  });

  it('a pending batch is sent when the notifier is unbound (the server stopping)', async () => {
    notifier.toRoomBatched(ROOM, 'heats_updated', heats(1));
    await until(1);
    notifier.toRoomBatched(ROOM, 'heats_updated', heats(2));
    const unboundAt = performance.now();
    notifier.unbind();
    const got = await until(2);
    expect(got.map((r) => r.userId)).toEqual([1, 2]);
    expect(got[1].at - unboundAt).toBeLessThan(INTERVAL_MS / 2);
  });
});

describe('a batch that reaches many sockets', () => {
  it('lets the event loop run after about 20 000 deliveries, and keeps the order', async () => {
    // five broadcasts to a room of 10 000: two per turn of the loop
    const batches = new RoomBatches({ interval: () => 0, members: () => 10_000 });
    const order: string[] = [];
    for (let n = 1; n <= 5; n++) batches.add(ROOM, () => order.push(`notice ${n}`));
    // runs once the first part of the batch let the loop go on
    setImmediate(() => order.push('other work'));
    await sleep(50);
    expect(order).toEqual(['notice 1', 'notice 2', 'other work', 'notice 3', 'notice 4', 'notice 5']);
  });
});

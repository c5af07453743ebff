import { randomBytes } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import type { Container } from '../../src/container';
import { RedisConnections } from '../../src/lib/redis';
import { createChatFloodLimiter } from '../../src/modules/chat/redis-flood-limit';
import { createTestContainer } from '../helpers/container';
import { prisma } from '../helpers/db';
import { createEvent, createUser, ensureEventRoom, joinEvent } from '../helpers/factories';
import { childEnv, startServer, waitForHealth, type ServerProcess } from '../helpers/process';
import { describeWithRedis, usePrivateRedis } from '../helpers/redis-server';
import { connectSocket, emitAck, type ClientSocket } from '../helpers/socket';

/**
 * The chat flood limit with REDIS_URL, against a private real redis-server of this file
 * (tests/helpers/redis-server.ts). Every key this file writes starts with a prefix of its own
 * (REDIS_KEY_PREFIX). The tests that need it are skipped when redis-server is not installed
 * (describeWithRedis); with CI=true that fails instead.
 */
const privateRedis = usePrivateRedis();
let REDIS_URL = '';
const PREFIX = `test-flood-${process.pid}-${randomBytes(4).toString('hex')}:`;
const BURST = 10;
const PER_SECOND = 5;

/** A logger that keeps its lines (level and message) for assertions. */
function capturingLogger() {
  const lines: { level: number; msg: string }[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { logger, lines };
}

beforeAll(() => {
  REDIS_URL = privateRedis.get()?.url ?? '';
});

const takeMany = async (container: Container, userId: number, n: number) => {
  let allowed = 0;
  for (let i = 0; i < n; i++) if (await container.chatFlood.take(userId)) allowed++;
  return allowed;
};

describeWithRedis('chat flood limit in Redis, two containers with a frozen clock', () => {
  let now = new Date('2030-06-01T12:00:00.000Z');
  const clock = { now: () => now };
  const containers: Container[] = [];
  afterAll(async () => {
    await Promise.all(containers.map((c) => c.close()));
  });
  const instance = () => {
    const c = createTestContainer({ redisUrl: REDIS_URL, redisKeyPrefix: PREFIX }, { clock });
    containers.push(c);
    return c;
  };

  it('shares one bucket per user: 6 + 6 takes on two instances allow 10, one more after 200 ms', async () => {
    const [a, b] = [instance(), instance()];
    const userId = 1_000_000 + Math.floor(Math.random() * 1_000_000);
    expect((await takeMany(a, userId, 6)) + (await takeMany(b, userId, 6))).toBe(BURST);
    expect(await a.chatFlood.take(userId + 1)).toBe(true); // another user has a bucket of its own
    now = new Date(now.getTime() + 1000 / PER_SECOND);
    expect(await b.chatFlood.take(userId)).toBe(true);
    expect(await a.chatFlood.take(userId)).toBe(false);
  });
});

describe('chat flood limit with a Redis that does not answer', () => {
  let silent: Server;
  const connections: Socket[] = [];
  beforeAll(async () => {
    silent = createServer((socket) => connections.push(socket)); // accepts, never replies
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    for (const s of connections) s.destroy();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  });

  it('falls back to the per-instance bucket and logs it once', async () => {
    const { logger, lines } = capturingLogger();
    let now = Date.parse('2030-06-01T12:00:00.000Z');
    const { port } = silent.address() as AddressInfo;
    const redis = new RedisConnections(`redis://127.0.0.1:${port}/0`, logger, PREFIX);
    const limiter = createChatFloodLimiter(redis, logger, () => now);
    const warnings = () => lines.filter((l) => l.msg.startsWith('chat flood limit'));
    try {
      // the first take waits for Redis until the timeout, the next ones use the fallback at once
      let allowed = 0;
      for (let i = 0; i < BURST + 2; i++) if (await limiter.take(42)) allowed++;
      expect(allowed).toBe(BURST);
      // Redis is tried again after a while, fails again: still the one warning
      now += 60_000;
      expect(await limiter.take(42)).toBe(true);
      expect(warnings()).toEqual([
        expect.objectContaining({ level: 40, msg: expect.stringContaining('limiting per instance') }),
      ]);
    } finally {
      await redis.close();
    }
  });
});

describeWithRedis('REDIS_URL: the chat flood limit across two service instances', () => {
  let a: ServerProcess | undefined;
  let b: ServerProcess | undefined;
  const sockets: ClientSocket[] = [];

  beforeAll(async () => {
    const env = childEnv({
      REDIS_URL,
      REDIS_KEY_PREFIX: PREFIX,
      RATE_LIMIT_ENABLED: 'false',
      MATCHING_SCHEDULER_ENABLED: 'false',
    });
    [a, b] = await Promise.all([startServer(env), startServer(env)]);
    await Promise.all([waitForHealth(a), waitForHealth(b)]);
  }, 90_000);

  afterAll(async () => {
    for (const s of sockets) s.close();
    for (const p of [a, b]) {
      if (p && p.child.exitCode === null) {
        p.child.kill('SIGTERM');
        await p.exited;
      }
    }
  });

  it('limits a burst split across instance A and B in total', async () => {
    const event = await createEvent();
    const user = await createUser();
    await joinEvent(user.user, event);
    const room = await ensureEventRoom(event);
    const join = async (server: ServerProcess) => {
      const socket = await connectSocket(`http://127.0.0.1:${server.port}`, user.token);
      sockets.push(socket);
      expect(await emitAck(socket, 'join_event_room', event.slug)).toMatchObject({ success: true });
      return socket;
    };
    const [onA, onB] = [await join(a!), await join(b!)];

    const perInstance = 15; // each instance alone would let 10 of its 15 through: 20
    const started = Date.now();
    const acks = await Promise.all(
      Array.from({ length: 2 * perInstance }, (_, i) =>
        emitAck(i % 2 ? onB : onA, 'send_event_message', { content: `burst ${i}` }),
      ),
    );
    const elapsedSeconds = (Date.now() - started) / 1000;

    const accepted = acks.filter((ack) => ack.success).length;
    const refused = acks.filter((ack) => !ack.success);
    expect(refused.every((ack) => ack.code === 'CHAT_FLOOD')).toBe(true);
    // one shared bucket: the burst plus what refilled meanwhile (per instance it would be 2 × 10)
    expect(accepted).toBeGreaterThanOrEqual(BURST);
    expect(accepted).toBeLessThanOrEqual(BURST + Math.ceil(elapsedSeconds * PER_SECOND));
    expect(await prisma.message.count({ where: { roomId: room.id } })).toBe(accepted);
  }, 30_000);
});

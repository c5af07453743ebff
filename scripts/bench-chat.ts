/**
 * `npm run bench`: event chat benchmark (a script, not a test).
 *
 * Starts the real HTTP + Socket.IO server in this process on an ephemeral port, against a
 * PostgreSQL database it creates and drops itself (admin URL: TEST_DATABASE_ADMIN_URL or
 * postgresql://postgres@127.0.0.1:5432/postgres), then reports:
 *  (a) fan-out: one sender and 200 participant sockets in one room; send-to-receive latency
 *      p50/p99 at 20 messages/s, and the delivery rate at that pace and flat out;
 *  (b) history page latency (GET /events/:slug/messages?before=…) p50/p99 at 1 000 and at
 *      1 000 000 stored messages, and the ratio of the p50s.
 * Targets: p50 at 1M ≤ 1.5 × p50 at 1k; fan-out p99 ≤ 50 ms at 20 msg/s.
 * Clients run in the same process as the server, so the figures include client-side work.
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { io as ioClient, type Socket } from 'socket.io-client';
import { benchDatabase, benchEnvironment } from './lib/bench-database.js';

const RECEIVERS = 200;
const FANOUT_RATE = 20; // messages per second
const FANOUT_MESSAGES = 200; // 10 s at 20 msg/s
const BURST_MESSAGES = 300;
const HISTORY_SAMPLES = 500;
const PAGE_LIMIT = 20;

const database = benchDatabase('wcs_bench');
const dbUrl = database.url;

// The environment the container's configuration is loaded from (loadConfig(process.env) below).
Object.assign(process.env, benchEnvironment(dbUrl), { REQUIRE_EMAIL_VERIFICATION: 'true' });

/** Receiver thread (plain CommonJS, evaluated): connects the sockets, joins the room, measures. */
const RECEIVER_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { performance } = require('node:perf_hooks');
const { io } = require(${JSON.stringify(require.resolve('socket.io-client'))});
const sockets = [];
let delivered = 0;
let latencies = [];
function onMessage(m) {
  const at = performance.timeOrigin + performance.now();
  const sent = Number(String(m.content).split('@')[1]);
  if (!Number.isNaN(sent)) latencies.push(at - sent);
  delivered++;
}
function connect(token) {
  return new Promise((resolve, reject) => {
    const s = io(workerData.url, { transports: ['websocket'], reconnection: false, forceNew: true, auth: { token } });
    s.once('connect', () => resolve(s));
    s.once('connect_error', reject);
  });
}
parentPort.on('message', async (msg) => {
  if (msg.type === 'connect') {
    for (let i = 0; i < workerData.tokens.length; i += 25) {
      sockets.push(...(await Promise.all(workerData.tokens.slice(i, i + 25).map(connect))));
    }
    for (const s of sockets) {
      const ack = await new Promise((r) => s.emit('join_event_room', workerData.slug, r));
      if (!ack.success) throw new Error('join failed: ' + ack.error);
      s.on('event_message', onMessage);
    }
    parentPort.postMessage({ ready: true });
  } else if (msg.type === 'stats') {
    parentPort.postMessage({ delivered, latencies });
    if (msg.reset) { delivered = 0; latencies = []; }
  } else if (msg.type === 'close') {
    for (const s of sockets) s.close();
    parentPort.postMessage({ closed: true });
  }
});
`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index];
}
const ms = (v: number) => `${v.toFixed(2)} ms`;

function connect(url: string, token: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = ioClient(url, { transports: ['websocket'], reconnection: false, forceNew: true, auth: { token } });
    socket.once('connect', () => resolve(socket));
    socket.once('connect_error', reject);
  });
}

function emitAck(
  socket: Socket,
  event: string,
  ...args: unknown[]
): Promise<{ success: boolean; error?: string; data?: unknown }> {
  return new Promise((resolve) => socket.emit(event, ...args, resolve));
}

async function main() {
  await database.create();
  const { loadConfig } = await import('../src/config/index.js');
  const { createContainer } = await import('../src/container.js');
  const { listenOnLoopback } = await import('./lib/bench-server.js');
  // One sender at 20 msg/s exceeds the per-user flood limit (5/s) on purpose: off for the bench.
  const container = createContainer(loadConfig(process.env), { chatFlood: { take: async () => true } });
  const { prisma } = container;
  const { randomSlug } = await import('../src/lib/ids.js');

  const sockets: Socket[] = [];
  let server: import('./lib/bench-server.js').BenchServer | undefined;
  try {
    await container.database.prepare();

    server = await listenOnLoopback(container);
    const { url } = server;

    // ---------------------------------------------------------------- data
    const now = Date.now();
    const event = await prisma.event.create({
      data: {
        slug: randomSlug(),
        name: 'Bench',
        location: 'Here',
        startDate: new Date(now),
        endDate: new Date(now + 86_400_000),
      },
    });
    await prisma.chatRoom.create({ data: { eventId: event.id, type: 'event' } });
    const tag = randomSlug(6);
    await prisma.user.createMany({
      data: Array.from({ length: RECEIVERS + 1 }, (_, i) => ({
        username: `bench_${tag}_${i}`,
        email: `bench_${tag}_${i}@example.test`,
        passwordHash: 'not-a-login-account',
        avatar: `https://example.test/${i}.svg`,
        emailVerified: true,
      })),
    });
    const users = await prisma.user.findMany({
      where: { username: { startsWith: `bench_${tag}_` } },
      orderBy: { id: 'asc' },
    });
    await prisma.eventParticipant.createMany({ data: users.map((u) => ({ userId: u.id, eventId: event.id })) });
    await prisma.event.update({ where: { id: event.id }, data: { participantsCount: users.length } });
    const tokens = users.map((u) => container.tokens.sign(u));

    // ---------------------------------------------------------------- (a) fan-out
    // The receivers run in a worker thread so that their parsing does not share the server's
    // event loop. Latency = receive time − send time, both absolute (timeOrigin + now), carried in
    // the message content.
    console.log(`connecting ${RECEIVERS} receivers (worker thread) and 1 sender ...`);
    const worker = new Worker(RECEIVER_WORKER, {
      eval: true,
      workerData: { url, tokens: tokens.slice(1, 1 + RECEIVERS), slug: event.slug },
    });
    const ask = <T>(message: object) =>
      new Promise<T>((resolve, reject) => {
        const onMessage = (reply: T) => {
          worker.off('error', reject);
          resolve(reply);
        };
        worker.once('message', onMessage);
        worker.once('error', reject);
        worker.postMessage(message);
      });
    await ask<{ ready: true }>({ type: 'connect' });
    const sender = await connect(url, tokens[0]);
    sockets.push(sender);
    await emitAck(sender, 'join_event_room', event.slug);
    await sleep(500); // let the presence broadcasts of the joins settle

    const absNow = () => performance.timeOrigin + performance.now();
    const send = (content: string) => sender.emit('send_event_message', { content: `${content}@${absNow()}` });
    const runPaced = async (count: number, rate: number, prefix: string) => {
      const interval = 1000 / rate;
      const start = performance.now();
      for (let i = 0; i < count; i++) {
        const wait = start + i * interval - performance.now();
        if (wait > 0) await sleep(wait);
        send(`${prefix}-${i}`);
      }
    };
    type Stats = { delivered: number; latencies: number[] };
    const collect = async (expected: number, timeoutMs: number): Promise<Stats> => {
      const deadline = performance.now() + timeoutMs;
      for (;;) {
        const stats = await ask<Stats>({ type: 'stats', reset: false });
        if (stats.delivered >= expected || performance.now() > deadline)
          return ask<Stats>({ type: 'stats', reset: true });
        await sleep(20);
      }
    };

    // warm-up
    await runPaced(20, FANOUT_RATE, 'warm');
    await collect(20 * RECEIVERS, 10_000);

    const pacedStart = performance.now();
    await runPaced(FANOUT_MESSAGES, FANOUT_RATE, 'paced');
    const paced = await collect(FANOUT_MESSAGES * RECEIVERS, 30_000);
    const pacedSeconds = (performance.now() - pacedStart) / 1000;
    const pacedLatencies = paced.latencies;
    const pacedDelivered = paced.delivered;

    const burstStart = performance.now();
    for (let i = 0; i < BURST_MESSAGES; i++) send(`burst-${i}`);
    const burst = await collect(BURST_MESSAGES * RECEIVERS, 120_000);
    const burstSeconds = (performance.now() - burstStart) / 1000;
    const burstDelivered = burst.delivered;
    const latencies = burst.latencies;

    await ask({ type: 'close' });
    await worker.terminate();
    for (const s of sockets) s.close();
    sockets.length = 0;

    // ---------------------------------------------------------------- (b) history paging
    const reader = users[0];
    const auth = { Authorization: `Bearer ${tokens[0]}` };
    // Two rooms, 1 000 and 1 000 000 messages; requests alternate between them so that load
    // on the machine affects both series alike.
    const historyRoom = async (name: string) => {
      const e = await prisma.event.create({
        data: {
          slug: randomSlug(),
          name,
          location: 'Here',
          startDate: new Date(now),
          endDate: new Date(now + 86_400_000),
        },
      });
      const r = await prisma.chatRoom.create({ data: { eventId: e.id, type: 'event' } });
      await prisma.eventParticipant.create({ data: { userId: reader.id, eventId: e.id } });
      return { slug: e.slug, roomId: r.id };
    };
    const insert = (roomId: number, count: number) =>
      prisma.$executeRawUnsafe(
        `INSERT INTO "Message" ("roomId", "userId", content, type, "createdAt")
         SELECT $1, $2, 'history message ' || g, 'text', now() FROM generate_series(1, $3) AS g`,
        roomId,
        reader.id,
        count,
      );
    const small = await historyRoom('History 1k');
    const large = await historyRoom('History 1M');
    console.log('history: inserting 1 000 + 1 000 000 messages ...');
    await insert(small.roomId, 1_000);
    await insert(large.roomId, 1_000_000);
    await prisma.$executeRawUnsafe('VACUUM ANALYZE "Message"');

    const rangeOf = async (roomId: number) => {
      const b = await prisma.message.aggregate({
        where: { roomId },
        _min: { id: true },
        _max: { id: true },
        _count: true,
      });
      return { min: b._min.id!, max: b._max.id!, count: b._count };
    };
    const pageOnce = async (room: { slug: string }, range: { min: number; max: number }) => {
      // cursors spread over the whole history of the room (never its newest page)
      const before = range.min + PAGE_LIMIT + Math.floor(Math.random() * (range.max - range.min - PAGE_LIMIT));
      const t0 = performance.now();
      const res = await fetch(`${url}/api/events/${room.slug}/messages?before=${before}&limit=${PAGE_LIMIT}`, {
        headers: auth,
      });
      const body = (await res.json()) as { data: unknown[] };
      const elapsed = performance.now() - t0;
      if (res.status !== 200 || body.data.length !== PAGE_LIMIT) throw new Error(`unexpected page: ${res.status}`);
      return elapsed;
    };
    const smallRange = await rangeOf(small.roomId);
    const largeRange = await rangeOf(large.roomId);
    console.log(`  rooms hold ${smallRange.count} and ${largeRange.count} messages`);
    const smallSamples: number[] = [];
    const largeSamples: number[] = [];
    for (let i = 0; i < HISTORY_SAMPLES + 20; i++) {
      const s = await pageOnce(small, smallRange);
      const l = await pageOnce(large, largeRange);
      if (i >= 20) {
        // first 20 pairs: warm-up
        smallSamples.push(s);
        largeSamples.push(l);
      }
    }
    const at1k = { p50: percentile(smallSamples, 50), p99: percentile(smallSamples, 99) };
    const at1m = { p50: percentile(largeSamples, 50), p99: percentile(largeSamples, 99) };

    // ---------------------------------------------------------------- report
    const ratio = at1m.p50 / at1k.p50;
    const fanP99 = percentile(pacedLatencies, 99);
    console.log('\n=== event chat benchmark ===');
    console.log(
      `machine: ${os.cpus().length} CPUs, load average ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' / ')} (1/5/15 min)`,
    );
    console.log(`(a) fan-out, 1 sender → ${RECEIVERS} sockets in one room`);
    console.log(
      `    at ${FANOUT_RATE} msg/s (${FANOUT_MESSAGES} messages): delivered ${pacedDelivered}/${FANOUT_MESSAGES * RECEIVERS} ` +
        `= ${(pacedDelivered / pacedSeconds).toFixed(0)} deliveries/s (${(pacedDelivered / RECEIVERS / pacedSeconds).toFixed(1)} messages/s)`,
    );
    console.log(`    send-to-receive latency p50 ${ms(percentile(pacedLatencies, 50))}, p99 ${ms(fanP99)}`);
    console.log(
      `    flat out (${BURST_MESSAGES} messages without pacing): ${(burstDelivered / burstSeconds).toFixed(0)} deliveries/s ` +
        `= ${(burstDelivered / RECEIVERS / burstSeconds).toFixed(1)} messages/s to all ${RECEIVERS}, p50 ${ms(percentile(latencies, 50))}, p99 ${ms(percentile(latencies, 99))}`,
    );
    console.log(
      `(b) history page (limit ${PAGE_LIMIT}, random before), ${HISTORY_SAMPLES} requests per room over HTTP, alternating between the rooms`,
    );
    console.log(`    1 000 messages:     p50 ${ms(at1k.p50)}, p99 ${ms(at1k.p99)}`);
    console.log(`    1 000 000 messages: p50 ${ms(at1m.p50)}, p99 ${ms(at1m.p99)}`);
    console.log(`    ratio p50(1M)/p50(1k) = ${ratio.toFixed(2)}`);
    console.log('targets:');
    console.log(`    history p50 ratio ≤ 1.5: ${ratio <= 1.5 ? 'met' : 'NOT met'}`);
    console.log(`    fan-out p99 ≤ 50 ms at ${FANOUT_RATE} msg/s: ${fanP99 <= 50 ? 'met' : 'NOT met'}`);
  } finally {
    for (const s of sockets) s.close();
    await server?.close();
    await container.close();
    await database.drop();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    database.drop().finally(() => process.exit(1));
  },
);

/**
 * `npm run bench:storm`: presence storm benchmark (a script, not a test; issue 16 item 1).
 *
 * Starts the real HTTP + Socket.IO server in this process on an ephemeral loopback port,
 * against a PostgreSQL database it creates and drops itself (admin URL:
 * TEST_DATABASE_ADMIN_URL or postgresql://postgres@127.0.0.1:5432/postgres). A worker thread
 * connects SOCKETS sockets (one user each) that join one event room, one by one (default) or
 * all at once (`npm run bench:storm -- --at-once`). Then one member sends one message.
 * Reports: bytes received per socket during the joins (mean, max, first joiner), presence
 * frames, refused joins (by error), sockets still connected, and how many of the members
 * the message reached.
 * Everything stays on 127.0.0.1 and every wait is bounded.
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { benchDatabase, benchEnvironment } from './lib/bench-database.js';

const SOCKETS = Number(process.env.BENCH_STORM_SOCKETS ?? 1000);
const AT_ONCE = process.argv.includes('--at-once');
const SETTLE_TIMEOUT_MS = 60_000;
const DELIVERY_TIMEOUT_MS = 30_000;

const database = benchDatabase('wcs_storm');
const dbUrl = database.url;

// The environment the container's configuration is loaded from (loadConfig(process.env) below).
Object.assign(process.env, benchEnvironment(dbUrl));

/** Client thread (plain CommonJS, evaluated): the sockets, their byte counters and the joins. */
const CLIENT_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { io } = require(${JSON.stringify(require.resolve('socket.io-client'))});
const { url, tokens, slug, atOnce } = workerData;
const clients = [];
function connect(token) {
  return new Promise((resolve, reject) => {
    const s = io(url, { transports: ['websocket'], reconnection: false, forceNew: true, auth: { token } });
    const c = { s, bytes: 0, presence: 0, joined: 0, disconnected: false, got: false };
    s.once('connect', () => {
      s.io.engine.on('packet', (p) => { if (typeof p.data === 'string') c.bytes += Buffer.byteLength(p.data); else if (p.data) c.bytes += p.data.byteLength; });
      resolve(c);
    });
    s.once('connect_error', reject);
    s.onAny((name) => {
      if (name === 'active_users' || name === 'user_joined' || name === 'user_left') c.presence++;
      if (name === 'user_joined') c.joined++;
    });
    s.on('event_message', () => { c.got = true; });
    s.on('disconnect', () => { c.disconnected = true; });
  });
}
const join = (c) => new Promise((r) => c.s.emit('join_event_room', slug, r));
const wait = (ms) => new Promise((r) => setTimeout(r, ms));
async function until(pred, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (!pred() && Date.now() < deadline) await wait(20);
  return pred();
}
parentPort.on('message', async (msg) => {
  if (msg.type === 'connect') {
    for (let i = 0; i < tokens.length; i += 25) clients.push(...(await Promise.all(tokens.slice(i, i + 25).map(connect))));
    parentPort.postMessage({ connected: clients.length });
  } else if (msg.type === 'join') {
    const t0 = Date.now();
    const errors = {};
    const record = (c, a) => {
      c.ok = Boolean(a && a.success);
      if (!c.ok) { const e = (a && a.error) || 'no ack'; errors[e] = (errors[e] || 0) + 1; }
    };
    if (atOnce) await Promise.all(clients.map(async (c) => record(c, await join(c))));
    else for (const c of clients) record(c, await join(c));
    const joinMs = Date.now() - t0;
    const members = clients.filter((c) => c.ok);
    // settled when the first member heard of every other member (bounded wait)
    const first = members[0];
    const settled = first ? await until(() => first.joined >= members.length - 1 || first.disconnected, msg.settleMs) : false;
    parentPort.postMessage({ joinMs, members: members.length, errors, settled });
  } else if (msg.type === 'send') {
    const members = clients.filter((c) => c.ok);
    const sender = members[members.length - 1];
    const ack = sender ? await new Promise((r) => sender.s.emit('send_event_message', { content: 'storm over?' }, r)) : undefined;
    const live = members.filter((c) => !c.disconnected).length;
    if (ack && ack.success) await until(() => clients.filter((c) => c.got).length >= live, msg.timeoutMs);
    parentPort.postMessage({
      sent: Boolean(ack && ack.success),
      delivered: clients.filter((c) => c.got).length,
      connected: clients.filter((c) => c.s.connected && !c.disconnected).length,
      bytes: clients.map((c) => c.bytes),
      presence: clients.map((c) => c.presence),
    });
  } else if (msg.type === 'close') {
    for (const c of clients) c.s.close();
    parentPort.postMessage({ closed: true });
  }
});
`;

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

async function main() {
  await database.create();
  const { loadConfig } = await import('../src/config/index.js');
  const { createContainer } = await import('../src/container.js');
  const { listenOnLoopback } = await import('./lib/bench-server.js');
  const { randomSlug } = await import('../src/lib/ids.js');
  const container = createContainer(loadConfig(process.env));
  const { prisma } = container;
  let worker: Worker | undefined;
  let server: import('./lib/bench-server.js').BenchServer | undefined;
  try {
    await container.database.prepare();
    server = await listenOnLoopback(container);
    const { url } = server;

    const now = Date.now();
    const event = await prisma.event.create({
      data: {
        slug: randomSlug(),
        name: 'Storm',
        location: 'Here',
        startDate: new Date(now),
        endDate: new Date(now + 86_400_000),
      },
    });
    await prisma.chatRoom.create({ data: { eventId: event.id, type: 'event' } });
    const tag = randomSlug(6);
    await prisma.user.createMany({
      data: Array.from({ length: SOCKETS }, (_, i) => ({
        username: `storm_${tag}_${i}`,
        email: `storm_${tag}_${i}@example.test`,
        passwordHash: 'not-a-login-account',
        avatar: `https://example.test/${i}.svg`,
        emailVerified: true,
      })),
    });
    const users = await prisma.user.findMany({
      where: { username: { startsWith: `storm_${tag}_` } },
      orderBy: { id: 'asc' },
    });
    await prisma.eventParticipant.createMany({ data: users.map((u) => ({ userId: u.id, eventId: event.id })) });
    const tokens = users.map((u) => container.tokens.sign(u));

    worker = new Worker(CLIENT_WORKER, { eval: true, workerData: { url, tokens, slug: event.slug, atOnce: AT_ONCE } });
    const w = worker;
    const ask = <T>(message: object) =>
      new Promise<T>((resolve, reject) => {
        w.once('message', resolve);
        w.once('error', reject);
        w.postMessage(message);
      });

    console.log(`connecting ${SOCKETS} sockets (one user each, worker thread) ...`);
    await ask({ type: 'connect' });
    console.log(`joining one event room ${AT_ONCE ? 'all at once' : 'one by one'} ...`);
    const t0 = performance.now();
    const joined = await ask<{ joinMs: number; members: number; errors: Record<string, number>; settled: boolean }>({
      type: 'join',
      settleMs: SETTLE_TIMEOUT_MS,
    });
    const result = await ask<{
      sent: boolean;
      delivered: number;
      connected: number;
      bytes: number[];
      presence: number[];
    }>({
      type: 'send',
      timeoutMs: DELIVERY_TIMEOUT_MS,
    });
    const totalSeconds = (performance.now() - t0) / 1000;
    await ask({ type: 'close' });

    const totalBytes = result.bytes.reduce((a, b) => a + b, 0);
    const totalPresence = result.presence.reduce((a, b) => a + b, 0);
    console.log('');
    console.log(
      `presence storm: ${SOCKETS} sockets, ${AT_ONCE ? 'all at once' : 'one by one'} (${new Date().toISOString().slice(0, 10)}, ${process.platform}, ${cores()} cores, load ${loadAverage()})`,
    );
    const refused =
      Object.entries(joined.errors)
        .map(([error, n]) => `${n} × "${error}"`)
        .join(', ') || 'none';
    console.log(
      `  joins: ${joined.joinMs} ms, ${joined.members} joined, refused acks: ${refused}; presence settled: ${joined.settled ? 'yes' : 'no (timed out)'}`,
    );
    console.log(
      `  bytes received per member: mean ${kb(totalBytes / SOCKETS)}, max ${kb(Math.max(...result.bytes))}, first joiner ${kb(result.bytes[0])}`,
    );
    console.log(
      `  presence frames: ${totalPresence} in total (${(totalPresence / SOCKETS).toFixed(1)} per member); all bytes ${kb(totalBytes)}`,
    );
    console.log(`  sockets still connected: ${result.connected} / ${SOCKETS}`);
    console.log(
      `  broadcast delivery: ${result.delivered} / ${joined.members} members${result.sent ? '' : ' (send refused)'}`,
    );
    console.log(`  total ${totalSeconds.toFixed(1)} s`);
  } finally {
    await worker?.terminate();
    await server?.close();
    await container.close();
    await database.drop();
  }
}

const cores = () => os.cpus().length;
const loadAverage = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);

/**
 * The dancers' phones of `npm run bench:event-day`: a worker thread holding one Socket.IO client
 * per dancer (plain CommonJS, loaded by `new Worker(path)`), so their work does not stall the
 * main thread's HTTP load. Each client behaves like an app on socket.io-client's defaults:
 * the manager reconnects a lost transport with its backoff (1 s doubling to 5 s, jitter 0.5);
 * a refused handshake (middleware error, which socket.io-client does not retry by itself) or a
 * server-side disconnect is retried with the same backoff, as the socket.io-client
 * documentation tells apps to do; after every connect the client joins the event room again.
 *
 * The main thread may run several of these workers, each with its share of the dancers.
 * Messages from the main thread: { type: 'connect' | 'storm' | 'storm-wait' | 'chat-reset' | 'chat-send' | 'chat-collect' | 'close' | 'stats' }.
 */
const { parentPort, workerData } = require('node:worker_threads');
const { monitorEventLoopDelay } = require('node:perf_hooks');
const { io } = require(workerData.clientPath);

const { url, tokens, slug, transports, presence } = workerData;
const now = () => performance.timeOrigin + performance.now();
const wait = (ms) => new Promise((r) => setTimeout(r, ms));

/** socket.io-client's Backoff with its defaults: min 1000, max 5000, factor 2, jitter 0.5. */
function backoff(attempt) {
  let ms = 1000 * Math.pow(2, attempt);
  const rand = Math.random();
  const deviation = Math.floor(rand * 0.5 * ms);
  ms = (Math.floor(rand * 10) & 1) === 0 ? ms - deviation : ms + deviation;
  return Math.min(ms, 5000) | 0;
}

const loop = monitorEventLoopDelay({ resolution: 10 });
loop.enable();

/** Counters of the phase in progress (reset by each phase). */
let phase = newPhase();
function newPhase() {
  return { refusals: {}, firstTryRefused: 0, transportErrors: 0, joinErrors: {}, bytes: 0, bytesBy: {} };
}
/** What a received packet is, for the bytes' tally: its event's name, `ack`, or the packet type. */
function packetKind(p) {
  if (p.type !== 'message') return p.type;
  const event = /^2\d*\["([^"]+)"/.exec(p.data);
  if (event) return event[1];
  return p.data[0] === '3' ? 'ack' : `socket.io type ${p.data[0]}`;
}
const counted = new WeakSet();
const count = (map, key) => {
  map[key] = (map[key] || 0) + 1;
};

const clients = tokens.map((token, index) => ({
  index,
  token,
  s: undefined,
  inRoom: false,
  joinedAt: 0,
  connectedAt: 0,
  attemptAt: NaN,
  attempts: 0,
  tries: 0,
  received: new Map(),
  heats: 0,
}));

function join(c) {
  c.s.timeout(30_000).emit('join_event_room', slug, (err, ack) => {
    if (!err && ack && ack.success) {
      c.inRoom = true;
      c.joinedAt = now();
      c.attempts = 0;
    } else {
      count(phase.joinErrors, err ? 'no ack in 30 s' : (ack && ack.code) || 'refused');
      // a refused join (e.g. 503) is tried again like a refused handshake
      setTimeout(() => c.s.connected && join(c), backoff(Math.min(c.attempts++, 3)));
    }
  });
}

function open(c) {
  const s = io(url, { transports, auth: { token: c.token, presence }, forceNew: true });
  c.s = s;
  // the manager's reconnection attempt (after its backoff) that led to the next connect
  s.io.on('reconnect_attempt', () => (c.attemptAt = now()));
  s.on('connect', () => {
    c.tries++;
    c.connectedAt = now();
    const engine = s.io.engine;
    if (!counted.has(engine)) {
      counted.add(engine);
      engine.on('packet', (p) => {
        if (typeof p.data !== 'string') return;
        phase.bytes += p.data.length;
        const kind = packetKind(p);
        phase.bytesBy[kind] = (phase.bytesBy[kind] || 0) + p.data.length;
      });
    }
    join(c);
  });
  s.on('connect_error', (err) => {
    const code = err && err.data && err.data.code;
    if (code || !s.active) {
      // a handshake the service answered with a refusal
      if (c.tries++ === 0) phase.firstTryRefused++;
      count(phase.refusals, code || (err && err.message) || 'error');
    } else {
      phase.transportErrors++;
    }
    // s.active: the manager retries by itself (transport error); otherwise the handshake was refused
    if (!s.active) setTimeout(() => s.connect(), backoff(Math.min(c.attempts++, 3)));
  });
  s.on('disconnect', (reason) => {
    c.inRoom = false;
    if (reason === 'io server disconnect') setTimeout(() => s.connect(), backoff(Math.min(c.attempts++, 3)));
  });
  s.on('heats_updated', () => c.heats++);
  s.on('event_message', (m) => {
    const match = /^bench (\d+) (\d+(?:\.\d+)?)$/.exec(m && m.content);
    if (match) c.received.set(Number(match[1]), now() - Number(match[2]));
  });
}

/** Resolves when every client is in the room (or at `deadline`), with the instant the last one joined. */
async function allInRoom(deadline) {
  while (now() < deadline) {
    if (clients.every((c) => c.inRoom)) break;
    await wait(25);
  }
  const inRoom = clients.filter((c) => c.inRoom);
  const times = inRoom.map((c) => c.joinedAt).sort((a, b) => a - b);
  return { inRoom: inRoom.length, lastJoinedAt: times.length ? times[times.length - 1] : NaN, joinTimes: times };
}

function report(extra) {
  const out = { ...phase, ...extra, loopP99: loop.percentile(99) / 1e6, loopMax: loop.max / 1e6 };
  loop.reset();
  phase = newPhase();
  return out;
}

parentPort.on('message', async (msg) => {
  if (msg.type === 'connect') {
    phase = newPhase();
    loop.reset();
    const t0 = now();
    for (const c of clients) open(c);
    const r = await allInRoom(t0 + msg.timeoutMs);
    parentPort.postMessage(report({ startedAt: t0, ...r, joinTimes: undefined }));
  } else if (msg.type === 'storm') {
    // The service is being stopped: count from here; the main thread says when it is healthy again.
    phase = newPhase();
    loop.reset();
    for (const c of clients) c.tries = 0;
    parentPort.postMessage({ ready: true });
  } else if (msg.type === 'storm-wait') {
    // raw figures: the main thread merges the workers' and takes the quantiles
    const r = await allInRoom(msg.deadline);
    const back = clients.filter((c) => c.inRoom);
    parentPort.postMessage(
      report({
        inRoom: r.inRoom,
        lastJoinedAt: r.lastJoinedAt,
        joinTimes: r.joinTimes,
        // where the time goes: the handshake accepted (after health), then the join answered
        connectedAfterHealth: back.map((c) => c.connectedAt - msg.healthyAt),
        joinAfterConnect: back.map((c) => c.joinedAt - c.connectedAt),
        attemptAfterHealth: back.map((c) => c.attemptAt - msg.healthyAt),
        connectAfterAttempt: back.map((c) => c.connectedAt - c.attemptAt),
      }),
    );
  } else if (msg.type === 'chat-reset') {
    phase = newPhase();
    loop.reset();
    for (const c of clients) c.received.clear();
    parentPort.postMessage({ reset: true });
  } else if (msg.type === 'chat-send') {
    // msg.rate messages per second for msg.seconds, each from the next dancer of this worker (the flood limit is per user)
    const total = Math.round(msg.rate * msg.seconds);
    const acked = [];
    const refused = {};
    const t0 = now();
    for (let i = 0; i < total; i++) {
      const due = t0 + (i * 1000) / msg.rate;
      if (due > now()) await wait(due - now());
      const sender = clients[(i * 7919) % clients.length];
      sender.s.timeout(10_000).emit('send_event_message', { content: `bench ${i} ${now()}` }, (err, ack) => {
        if (!err && ack && ack.success) acked.push(i);
        else count(refused, err ? 'no ack' : ack.code || ack.error);
      });
    }
    while (acked.length + Object.values(refused).reduce((a, b) => a + b, 0) < total) await wait(25);
    parentPort.postMessage({ sent: total, acked, refused });
  } else if (msg.type === 'chat-collect') {
    // every client of this worker should receive every acknowledged message
    const received = () => clients.reduce((n, c) => n + c.received.size, 0);
    const expected = msg.acked.length * clients.length;
    const deadline = now() + msg.settleMs;
    while (now() < deadline && received() < expected) await wait(25);
    const latencies = [];
    for (const c of clients) for (const ms of c.received.values()) latencies.push(ms);
    parentPort.postMessage(report({ expected, received: received(), latencies }));
  } else if (msg.type === 'heats-reset') {
    for (const c of clients) c.heats = 0;
    parentPort.postMessage({ reset: true });
  } else if (msg.type === 'heats-wait') {
    // every client should receive every heat change's heats_updated (the room's broadcast)
    const received = () => clients.reduce((n, c) => n + Math.min(c.heats, msg.each), 0);
    while (now() < msg.deadline && received() < msg.each * clients.length) await wait(10);
    parentPort.postMessage({ expected: msg.each * clients.length, received: received(), at: now() });
  } else if (msg.type === 'stats') {
    parentPort.postMessage({
      connected: clients.filter((c) => c.s && c.s.connected).length,
      inRoom: clients.filter((c) => c.inRoom).length,
    });
  } else if (msg.type === 'close') {
    for (const c of clients) c.s?.close();
    parentPort.postMessage({ closed: true });
  }
});

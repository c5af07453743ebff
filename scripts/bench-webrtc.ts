/**
 * `npm run bench:webrtc`: throughput of the video hand-off (a script, not a test).
 *
 * Starts the real HTTP + Socket.IO server in this process on an ephemeral port, against a
 * PostgreSQL database it creates and drops itself (admin URL: TEST_DATABASE_ADMIN_URL or
 * postgresql://postgres@127.0.0.1:5432/postgres), opens two pages in headless Chromium
 * (CHROMIUM_PATH, default /usr/bin/chromium) and runs the two-browser test's transfer: page A
 * sends a 32 MB file over a DataChannel to page B, signaled through `webrtc_signal`. Reports
 * the receive throughput (first to last byte) in MB/s on loopback, the number of signals that
 * crossed the service, and as a reference the same transfer between the same kind of pages whose
 * signals go page to page through the driver instead: the signaling is not on the data path.
 */
import {
  chromiumAvailable,
  CHROMIUM_PATH,
  launchChromium,
  linkDirectSignaling,
  openHandoffPage,
  runHandoff,
  signalsSent,
  startPageServer,
} from '../tests/helpers/handoff-browser.js';
import { benchDatabase, benchEnvironment } from './lib/bench-database.js';

const SIZE = 32 * 1024 * 1024;
const RUNS = 5;
const MB = 1024 * 1024;

const database = benchDatabase('wcs_bench_webrtc');
const dbUrl = database.url;

// The environment the container's configuration is loaded from (loadConfig(process.env) below).
Object.assign(process.env, benchEnvironment(dbUrl));

const rate = (bytes: number, ms: number) => `${(bytes / MB / (ms / 1000)).toFixed(1)} MB/s`;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main() {
  if (!chromiumAvailable())
    throw new Error(`no Chromium at ${CHROMIUM_PATH} (apt-get install -y chromium, or set CHROMIUM_PATH)`);
  await database.create();
  const { loadConfig } = await import('../src/config/index.js');
  const { createContainer } = await import('../src/container.js');
  const { listenOnLoopback } = await import('./lib/bench-server.js');
  const container = createContainer(loadConfig(process.env));
  const { prisma } = container;
  const signAccessToken = (user: { id: number }) => container.tokens.sign(user);
  const { randomSlug } = await import('../src/lib/ids.js');

  let server: import('./lib/bench-server.js').BenchServer | undefined;
  const cleanups: (() => Promise<void>)[] = [];
  try {
    await container.database.prepare();
    server = await listenOnLoopback(container);
    const { url } = server;

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
    const [recorder, dancer] = await Promise.all(
      ['recorder', 'dancer'].map((name) =>
        prisma.user.create({
          data: {
            username: `${name}_${randomSlug(6)}`,
            email: `${name}_${randomSlug(6)}@bench.test`,
            passwordHash: 'x',
            avatar: 'a',
            emailVerified: true,
          },
        }),
      ),
    );
    const pages = await startPageServer(url);
    cleanups.push(() => pages.close());
    const chrome = await launchChromium();
    cleanups.push(() => chrome.close());

    const timings: Record<'service' | 'direct', number[]> = { service: [], direct: [] };
    let signals = 0;

    /** One transfer between two fresh pages of a fresh accepted match; the whole signaling included. */
    async function transfer(mode: 'service' | 'direct') {
      const match = await prisma.match.create({
        data: {
          slug: randomSlug(),
          eventId: event.id,
          user1Id: recorder.id,
          user2Id: dancer.id,
          status: 'accepted',
          respondedAt: new Date(),
        },
      });
      const sender = await openHandoffPage(chrome.browser, pages.url, url, {
        token: signAccessToken(recorder),
        matchSlug: match.slug,
      });
      const receiver = await openHandoffPage(chrome.browser, pages.url, url, {
        token: signAccessToken(dancer),
        matchSlug: match.slug,
      });
      if (mode === 'direct') await linkDirectSignaling(sender, receiver);
      const result = await runHandoff(sender, receiver, SIZE);
      if (result.sender.sha256 !== result.receiver.sha256 || result.receiver.status !== 'completed')
        throw new Error('hash mismatch');
      const sent = (await signalsSent(sender)) + (await signalsSent(receiver));
      await sender.context().close();
      await receiver.context().close();
      await prisma.match.delete({ where: { id: match.id } });
      timings[mode].push(result.receiver.ms);
      return { ms: result.receiver.ms, signals: sent };
    }

    console.log(
      `video hand-off, ${SIZE / MB} MB over a DataChannel between two Chromium pages on loopback (64 KB chunks, 4 MB high-water mark)`,
    );
    for (let run = 1; run <= RUNS; run++) {
      const viaService = await transfer('service');
      const direct = await transfer('direct');
      signals += viaService.signals;
      console.log(
        `  run ${run}: signaled through the service ${rate(SIZE, viaService.ms)} (${viaService.signals} signals relayed, hash equal); ` +
          `signaled page to page ${rate(SIZE, direct.ms)}`,
      );
    }
    console.log(
      `median: ${rate(SIZE, median(timings.service))} signaled through the service vs ${rate(SIZE, median(timings.direct))} signaled page to page; ` +
        `${(signals / RUNS).toFixed(0)} signals per transfer vs ${SIZE / (64 * 1024)} data chunks (none through the service)`,
    );
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup();
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

import { existsSync, readFileSync } from 'node:fs';
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

/**
 * Two real browsers handing a file to each other through the service: a page server on
 * 127.0.0.1 (the test page, socket.io-client's browser build, and /api proxied to the
 * service so the page's fetches are same-origin), and headless Chromium driven by
 * playwright-core. Used by tests/webrtc/browser-handoff.test.ts and scripts/bench-webrtc.ts.
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const chromiumAvailable = () => existsSync(CHROMIUM_PATH);

const PAGE_HTML = `<!doctype html>
<html><head><meta charset="utf-8"><title>hand-off</title></head>
<body><script src="/socket.io.min.js"></script><script src="/handoff-page.js"></script></body></html>`;

function proxy(serviceUrl: string, req: IncomingMessage, res: ServerResponse): void {
  const target = new URL(req.url ?? '/', serviceUrl);
  const headers = { ...req.headers, host: target.host };
  const upstream = request(target, { method: req.method, headers }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  upstream.on('error', () => {
    res.writeHead(502).end();
  });
  req.pipe(upstream);
}

export interface PageServer {
  url: string;
  close(): Promise<void>;
}

/** Serves the hand-off page on 127.0.0.1 and proxies /api/* to the service. */
export async function startPageServer(serviceUrl: string): Promise<PageServer> {
  const files: Record<string, { type: string; body: Buffer | string }> = {
    '/': { type: 'text/html', body: PAGE_HTML },
    '/socket.io.min.js': {
      type: 'text/javascript',
      body: readFileSync(path.resolve(__dirname, '../../node_modules/socket.io-client/dist/socket.io.min.js')),
    },
    '/handoff-page.js': { type: 'text/javascript', body: readFileSync(path.join(__dirname, 'handoff-page.js')) },
  };
  const server = createServer((req, res) => {
    const pathname = new URL(req.url ?? '/', 'http://page').pathname;
    if (pathname.startsWith('/api/')) return proxy(serviceUrl, req, res);
    const file = files[pathname];
    if (!file) return void res.writeHead(404).end();
    res.writeHead(200, { 'Content-Type': file.type }).end(file.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface HandoffBrowser {
  browser: Browser;
  close(): Promise<void>;
}

/**
 * Headless Chromium; playwright-core gives every launch a fresh temporary profile
 * (--user-data-dir) and removes it on close. Host ICE candidates keep their real address
 * (no mDNS obfuscation), so two pages on this machine connect without any STUN server.
 */
export async function launchChromium(): Promise<HandoffBrowser> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      '--disable-features=WebRtcHideLocalIpsWithMdns',
    ],
  });
  return {
    browser,
    close: () => browser.close(),
  };
}

export interface PageUser {
  token: string;
  matchSlug: string;
}

/** A page in its own browser context (like a separate phone), connected to the service. */
export async function openHandoffPage(
  browser: Browser,
  pageUrl: string,
  serviceUrl: string,
  user: PageUser,
): Promise<Page> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(pageUrl);
  await page.evaluate((args) => (globalThis as unknown as { connect(a: unknown): Promise<unknown> }).connect(args), {
    serviceUrl,
    ...user,
  });
  return page;
}

export interface HandoffResult {
  sender: { sha256: string; transferId: number; status: string; ms: number; maxBuffered: number };
  receiver: { sha256: string; bytes: number; ms: number; transferId: number; status: string };
}

type HandoffWindow = {
  sendFile(a: { size: number; fileName: string }): Promise<HandoffResult['sender']>;
  receivedFile(): Promise<HandoffResult['receiver']>;
};

/** Page A offers and sends `size` random bytes; page B answers, receives, hashes and completes the record. */
export async function runHandoff(
  sender: Page,
  receiver: Page,
  size: number,
  fileName = 'heat-video.mp4',
): Promise<HandoffResult> {
  const received = receiver.evaluate(() => (globalThis as unknown as HandoffWindow).receivedFile());
  const sent = sender.evaluate((args) => (globalThis as unknown as HandoffWindow).sendFile(args), { size, fileName });
  const [senderResult, receiverResult] = await Promise.all([sent, received]);
  return { sender: senderResult, receiver: receiverResult };
}

/** The acks the page's service refused (and local WebRTC errors). */
export const signalErrors = (page: Page) =>
  page.evaluate(() => (globalThis as unknown as { signalErrors(): unknown[] }).signalErrors());

/** One raw `webrtc_signal` from the page, answered with the service's ack. */
export const trySignal = (page: Page, kind: string, data: unknown) =>
  page.evaluate(
    (args) =>
      (globalThis as unknown as { trySignal(k: string, d: unknown): Promise<unknown> }).trySignal(args.kind, args.data),
    { kind, data },
  );

/** How many `webrtc_signal` events the page sent. */
export const signalsSent = (page: Page) =>
  page.evaluate(() => (globalThis as unknown as { signalsSent(): number }).signalsSent());

/**
 * Benchmark reference: the two pages signal each other through the test driver instead of the
 * service (same pages, same transfer; only the signaling path differs).
 */
export async function linkDirectSignaling(a: Page, b: Page): Promise<void> {
  const deliver = (to: Page) => (msg: unknown) =>
    to.evaluate((m) => (globalThis as unknown as { deliverSignal(m: unknown): void }).deliverSignal(m), msg);
  await a.exposeFunction('directSignal', deliver(b));
  await b.exposeFunction('directSignal', deliver(a));
  for (const page of [a, b])
    await page.evaluate(() => (globalThis as unknown as { useDirectSignaling(): void }).useDirectSignaling());
}

import { readdirSync } from 'node:fs';
import path from 'node:path';
import { CONSOLE_CSP } from '../../src/modules/console/console.router';
import { spawnServer } from '../helpers/server-process';
import { useTestServer } from '../helpers/server';

/**
 * GET /console and below: one public page for every view path, assets from the service's own
 * files, the console's Content-Security-Policy on every response (page, assets, 404s), and
 * /api/docs keeping its own. Plain fetch: these paths are outside the OpenAPI document.
 */
const server = useTestServer();
const EXPECTED_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'";
const get = (p: string) => fetch(`${server.url}${p}`);

describe('the admin console page', () => {
  it('answers every console path with the same HTML page, without a token', async () => {
    const paths = [
      '/console',
      '/console/',
      '/console/events',
      '/console/events/abc123def456',
      '/console/events/abc123def456/matching',
      '/console/events/abc123def456/venue',
      '/console/anything/else',
    ];
    const bodies = new Set<string>();
    for (const p of paths) {
      const res = await get(p);
      expect({ path: p, status: res.status, type: res.headers.get('content-type') }).toEqual({
        path: p,
        status: 200,
        type: 'text/html; charset=utf-8',
      });
      bodies.add(await res.text());
    }
    expect(bodies.size).toBe(1);
  });

  it("carries the console policy exactly, and keeps helmet's other headers", async () => {
    const res = await get('/console/events');
    expect(res.headers.get('content-security-policy')).toBe(EXPECTED_CSP);
    expect(CONSOLE_CSP).toBe(EXPECTED_CSP);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-frame-options')).toBe('SAMEORIGIN');
  });

  it('has no inline script, no style attribute and loads only its own assets', async () => {
    const html = await (await get('/console')).text();
    expect(html).not.toMatch(/style\s*=/i);
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attrs, code] of scripts) {
      expect(code.trim()).toBe('');
      expect(attrs).toMatch(/src="\/console\/assets\//);
    }
    const sources = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    for (const source of sources) expect(source).toMatch(/^\/console\/assets\/[\w.-]+$/);
  });
});

describe('the admin console assets', () => {
  const files = readdirSync(path.join(__dirname, '..', '..', 'console', 'assets'));

  it('serves every file of console/assets with the console policy and a fitting type', async () => {
    expect(files).toEqual(expect.arrayContaining(['main.js', 'console.css', 'favicon.svg']));
    for (const file of files) {
      const res = await get(`/console/assets/${file}`);
      expect({ file, status: res.status }).toEqual({ file, status: 200 });
      expect(res.headers.get('content-security-policy')).toBe(EXPECTED_CSP);
      const type = res.headers.get('content-type') ?? '';
      if (file.endsWith('.js')) expect(type).toMatch(/javascript/);
      if (file.endsWith('.css')) expect(type).toMatch(/^text\/css/);
      if (file.endsWith('.svg')) expect(type).toMatch(/^image\/svg\+xml/);
    }
  });

  it('serves the Socket.IO client of the socket.io package as a console asset', async () => {
    const res = await get('/console/assets/socket.io.esm.min.js');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/javascript/);
    expect(res.headers.get('content-security-policy')).toBe(EXPECTED_CSP);
    expect(await res.text()).toMatch(/export\s*\{/);
  });

  it('answers 404 "Not found" in the envelope, with the console policy, for an unknown asset', async () => {
    for (const p of [
      '/console/assets/nope.js',
      '/console/assets/index.html',
      '/console/assets/%2e%2e%2fpackage.json',
      '/console/assets/sub/main.js',
    ]) {
      const res = await get(p);
      if (res.status === 200) throw new Error(`${p} answered 200`);
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ success: false, error: 'Not found', code: 'NOT_FOUND' });
    }
    const res = await get('/console/assets/nope.js');
    expect(res.headers.get('content-security-policy')).toBe(EXPECTED_CSP);
  });

  it('leaves the API reference page its own policy', async () => {
    const res = await get('/api/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).not.toBe(EXPECTED_CSP);
    const api = await get('/api/health');
    expect(api.headers.get('content-security-policy')).not.toBe(EXPECTED_CSP);
  });
});

describe('the admin console in the metrics', () => {
  it("labels console requests with the console's route templates, not the API's", async () => {
    await get('/console/events/abc123def456');
    await get('/console/assets/main.js');
    const text = await server.container.metrics.registry.metrics();
    expect(text).toMatch(/http_request_duration_seconds_count\{[^}]*route="\/console\/\{\*view\}"/);
    expect(text).toMatch(/http_request_duration_seconds_count\{[^}]*route="\/console\/assets\/\*file"/);
    expect(text).not.toMatch(/route="\/api\/(\{\*view\}|assets)/);
  });
});

describe('the admin console of the service process', () => {
  it('is served by `src/server.ts` as `npm start` runs it: the page, its modules and the Socket.IO client', async () => {
    const proc = await spawnServer({});
    try {
      await proc.waitForOutput(/listening on/);
      for (const p of [
        '/console/events',
        '/console/assets/main.js',
        '/console/assets/view-matching.js',
        '/console/assets/socket.io.esm.min.js',
      ]) {
        const res = await fetch(`${proc.url}${p}`);
        expect({ path: p, status: res.status, csp: res.headers.get('content-security-policy') }).toEqual({
          path: p,
          status: 200,
          csp: EXPECTED_CSP,
        });
      }
    } finally {
      proc.child.kill('SIGTERM');
      await proc.exited;
    }
  }, 60_000);
});

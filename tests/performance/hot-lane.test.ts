import { Writable } from 'node:stream';
import pino from 'pino';
import supertest from 'supertest';
import { buildApp } from '../../src/app';
import type { Container } from '../../src/container';
import { cachedRoutes } from '../../src/middleware/cached-read';
import { createRouters } from '../../src/routes';
import { createTestContainer } from '../helpers/container';
import { prisma } from '../helpers/db';
import { createEvent, createUser, joinEvent } from '../helpers/factories';

/**
 * The hot lane (src/middleware/cached-read.ts, createHotLane) answers a held answer before the
 * router: the same answer the router sent, counted by the rate limit, logged and timed under its
 * route, refused as soon as the session no longer holds.
 */
const containers: Container[] = [];
afterAll(async () => {
  await Promise.all(containers.map((c) => c.close()));
});

const METRICS_TOKEN = 'hot-lane-metrics-token-0123456789';

async function appWithLane(overrides: Parameters<typeof createTestContainer>[0] = {}) {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  const container = createTestContainer(
    { metrics: { token: METRICS_TOKEN }, ...overrides },
    { logger: pino({ level: 'info' }, sink) },
  );
  containers.push(container);
  expect(await container.readCache!.start()).toBe(true);
  return { container, request: supertest(buildApp(container)), lines };
}

describe('the hot lane', () => {
  it('lets only requireAuth and validate run before a cachedRead on every route (it skips them on a hit)', async () => {
    const container = createTestContainer();
    containers.push(container);
    const cached = cachedRoutes(createRouters(container));
    expect(cached.map((c) => c.path).sort()).toEqual(
      [
        '/dashboard',
        '/events',
        '/events/:slug/details',
        '/events/:slug/match-suggestions',
        '/events/:slug/messages',
        '/matches',
        '/users/me',
      ].sort(),
    );
    for (const { before } of cached) {
      expect(before[0]).toBe('requireAuth');
      expect(before.slice(1).every((name) => name === 'validateInput')).toBe(true);
    }
  });

  it("answers a held answer itself with the router's bytes and headers, logged and timed under its route", async () => {
    const { container, request, lines } = await appWithLane();
    const me = await createUser();
    const event = await createEvent();
    await joinEvent(me.user, event);
    const path = `/api/events/${event.slug}/details`;
    // the first read creates the event's check-in token (a write): the second is held
    await request.get(path).set('Authorization', me.auth).expect(200);
    const first = await request.get(path).set('Authorization', me.auth).expect(200);
    const answered = container.hotLane.stats().answered;
    const second = await request.get(path).set('Authorization', me.auth).set('X-Request-Id', 'lane-7').expect(200);

    expect(container.hotLane.stats().answered).toBe(answered + 1);
    expect(second.text).toBe(first.text);
    for (const header of [
      'content-type',
      'etag',
      'content-security-policy',
      'x-content-type-options',
      'ratelimit-policy',
    ])
      expect([header, second.headers[header]]).toEqual([header, first.headers[header]]);
    expect(second.headers['x-request-id']).toBe('lane-7');
    expect(lines).toContainEqual(
      expect.objectContaining({
        msg: 'request completed',
        req: { id: 'lane-7', method: 'GET', url: path },
        res: { statusCode: 200 },
      }),
    );
    const scrape = await request.get('/api/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}`).expect(200);
    expect(scrape.text).toMatch(
      /wcs_http_request_duration_seconds_count\{method="GET",route="\/api\/events\/:slug\/details",status="200"\} 3\n/,
    );
  });

  it('answers 304 to a poller that sends the ETag it holds', async () => {
    const { container, request } = await appWithLane();
    const me = await createUser();
    const first = await request.get('/api/users/me').set('Authorization', me.auth).expect(200);
    const answered = container.hotLane.stats().answered;
    await request
      .get('/api/users/me')
      .set('Authorization', me.auth)
      .set('If-None-Match', first.headers.etag)
      .expect(304);
    expect(container.hotLane.stats().answered).toBe(answered + 1);
  });

  it('refuses a revoked session on the next read although its answer is held (401 "Invalid or expired token")', async () => {
    const { request } = await appWithLane();
    const me = await createUser();
    await request.get('/api/users/me').set('Authorization', me.auth).expect(200);
    await request.get('/api/users/me').set('Authorization', me.auth).expect(200);
    await prisma.user.update({ where: { id: me.user.id }, data: { tokenVersion: { increment: 1 } } });
    const res = await request.get('/api/users/me').set('Authorization', me.auth).expect(401);
    expect(res.body).toMatchObject({ success: false, error: 'Invalid or expired token', code: 'INVALID_TOKEN' });
  });

  it('counts its answers in the general rate limit: the request over it gets 429 with Retry-After', async () => {
    const { container, request } = await appWithLane({
      rateLimit: { enabled: true, general: { max: 3, windowMs: 60_000 } },
    });
    const me = await createUser();
    for (let i = 0; i < 3; i++) await request.get('/api/users/me').set('Authorization', me.auth).expect(200);
    expect(container.hotLane.stats().answered).toBe(2);
    const res = await request.get('/api/users/me').set('Authorization', me.auth).expect(429);
    expect(res.body).toMatchObject({ success: false, code: 'RATE_LIMITED' });
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(container.hotLane.stats().answered).toBe(2);
  });

  it('looks only at the URLs of cachedRead routes: the documentation page with a token sends no fence', async () => {
    const { container, request } = await appWithLane();
    const me = await createUser();
    await request.get('/api/users/me').set('Authorization', me.auth).expect(200);
    const fences = container.readCache!.stats().fences;
    await request.get('/api/docs').set('Authorization', me.auth).expect(200);
    expect(container.readCache!.stats().fences).toBe(fences);
  });

  it('leaves a GET with a body to the router: a malformed JSON body is refused as before', async () => {
    const { container, request } = await appWithLane();
    const me = await createUser();
    await request.get('/api/users/me').set('Authorization', me.auth).expect(200);
    const answered = container.hotLane.stats().answered;
    const res = await request
      .get('/api/users/me')
      .set('Authorization', me.auth)
      .set('Content-Type', 'application/json')
      .send('{"broken":');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, code: 'MALFORMED_JSON' });
    expect(container.hotLane.stats().answered).toBe(answered);
  });
});

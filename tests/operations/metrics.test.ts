import supertest from 'supertest';
import { buildApp } from '../../src/app';
import type { Container } from '../../src/container';
import { createTestContainer } from '../helpers/container';
import { ConfigError } from '../../src/config/config-error';
import { loadConfig } from '../../src/config/index';
import { Metrics } from '../../src/lib/metrics';
import { Mailer, passwordResetMail } from '../../src/lib/mailer';
import { createLogger } from '../../src/lib/logger';
import { createEvent, createUser, ensureEventRoom, joinEvent } from '../helpers/factories';
import { createTrio, insertMatch } from '../helpers/matches';
import { heat, person, scenario } from '../helpers/matching';
import { startTestServer, type TestServer } from '../helpers/server';
import { captureSmtp, startSmtpCapture, type SmtpCapture } from '../helpers/smtp';
import { connectSocket, emitAck, type ClientSocket } from '../helpers/socket';

const TOKEN = 'metrics-token-for-the-tests-0123456789';

/** The value of one sample of the Prometheus text format, or undefined when absent. */
function sample(body: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of body.split('\n')) {
    if (line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const found = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]]));
    if (Object.entries(labels).every(([k, v]) => found[k] === v)) return Number(m[3]);
  }
  return undefined;
}

const containers: Container[] = [];
afterEach(async () => {
  await Promise.all(containers.splice(0).map((c) => c.close()));
});

/** An app of a container with its own Metrics; `null` builds it without a metrics token. */
function appWithMetrics(metricsToken: string | null = TOKEN) {
  const container = createTestContainer({ metrics: { token: metricsToken ?? undefined } });
  containers.push(container);
  return { metrics: container.metrics, request: supertest(buildApp(container)) };
}

async function scrape(request: ReturnType<typeof supertest>): Promise<string> {
  const res = await request.get('/api/metrics').set('Authorization', `Bearer ${TOKEN}`);
  expect(res.status).toBe(200);
  return res.text;
}

describe('GET /api/metrics', () => {
  it('serves the Prometheus text format with the process defaults and the database pool', async () => {
    const { request } = appWithMetrics();
    await request.get('/api/health').expect(200);
    const res = await request.get('/api/metrics').set('Authorization', `Bearer ${TOKEN}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(sample(res.text, 'nodejs_eventloop_lag_seconds')).toBeDefined();
    expect(sample(res.text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(sample(res.text, 'wcs_db_pool_connections', { state: 'idle' })).toBeGreaterThanOrEqual(0);
    expect(sample(res.text, 'wcs_db_pool_connections', { state: 'in_use' })).toBeGreaterThanOrEqual(0);
    expect(sample(res.text, 'wcs_db_pool_waiting_requests')).toBe(0);
  });

  it('counts the SQL statements sent through the pool: one per GET /api/health', async () => {
    const { request } = appWithMetrics();
    await request.get('/api/health').expect(200);
    const before = sample(await scrape(request), 'wcs_db_queries_total') ?? 0;
    await request.get('/api/health').expect(200);
    await request.get('/api/health').expect(200);
    expect(sample(await scrape(request), 'wcs_db_queries_total')).toBe(before + 2);
  });

  /** The metrics before and after one user's GET /api/users/me twice, on a container whose read cache listens. */
  async function twoReadsOfMe(): Promise<{ before: string; after: string }> {
    const container = createTestContainer({ metrics: { token: TOKEN } });
    containers.push(container);
    const request = supertest(buildApp(container));
    expect(await container.readCache!.start()).toBe(true);
    const me = await createUser();
    const before = await scrape(request);
    await request.get('/api/users/me').set('Authorization', me.auth).expect(200);
    await request.get('/api/users/me').set('Authorization', me.auth).expect(200);
    return { before, after: await scrape(request) };
  }

  it('shows the read cache: a first read is a miss, the same read again a hit, and what the cache holds', async () => {
    const { before, after } = await twoReadsOfMe();
    const lookups = (body: string, result: string) => sample(body, 'wcs_read_cache_lookups_total', { result }) ?? 0;
    // the session check and the answer are each looked up: missed the first time, found the second
    expect(lookups(after, 'miss') - lookups(before, 'miss')).toBe(2);
    expect(lookups(after, 'hit') - lookups(before, 'hit')).toBe(2);
    expect(sample(after, 'wcs_read_cache_entries')).toBeGreaterThanOrEqual(2);
    expect(sample(after, 'wcs_read_cache_bytes')).toBeGreaterThan(0);
    expect(sample(after, 'wcs_read_cache_up')).toBe(1);
  });

  it("counts the read cache's fences and their round trips: each read waited for one", async () => {
    const { before, after } = await twoReadsOfMe();
    const fences =
      (sample(after, 'wcs_read_cache_fences_total') ?? 0) - (sample(before, 'wcs_read_cache_fences_total') ?? 0);
    const seconds =
      (sample(after, 'wcs_read_cache_fence_seconds_total') ?? 0) -
      (sample(before, 'wcs_read_cache_fence_seconds_total') ?? 0);
    // one fence per request (its session check and its answer share it); a round trip takes some time
    expect(fences).toBe(2);
    expect(seconds).toBeGreaterThan(0);
    expect(seconds).toBeLessThan(10);
  });

  it('counts requests by route template, never by raw URL', async () => {
    const { request } = appWithMetrics();
    await request.get('/api/health').expect(200);
    await request.get('/api/health').expect(200);
    await request.get('/api/events/no-such-event-slug-x1').expect(404);
    await request.get('/api/no-such-path').expect(404);

    const body = await scrape(request);
    const count = (route: string, status: string) =>
      sample(body, 'wcs_http_request_duration_seconds_count', { method: 'GET', route, status });
    expect(count('/api/health', '200')).toBe(2);
    expect(count('/api/events/:slug', '404')).toBe(1);
    expect(count('unmatched', '404')).toBe(1);
    expect(body).not.toContain('no-such-event-slug-x1');
    expect(body).not.toContain('no-such-path');
  });

  it('moves the request series between two scrapes', async () => {
    const { request } = appWithMetrics();
    const labels = { method: 'GET', route: '/api/health', status: '200' };
    const before = sample(await scrape(request), 'wcs_http_request_duration_seconds_count', labels) ?? 0;
    await request.get('/api/health').expect(200);
    await request.get('/api/health').expect(200);
    await request.get('/api/health').expect(200);
    const after = sample(await scrape(request), 'wcs_http_request_duration_seconds_count', labels);
    expect(after).toBe(before + 3);
  });

  it('shows the counters services report through the Metrics methods', async () => {
    const { metrics, request } = appWithMetrics();
    metrics.chatMessageStored('event');
    metrics.chatMessageStored('event');
    metrics.chatMessageStored('private');
    metrics.matchingRunFinished({ outcome: 'completed', durationSeconds: 0.2, heatsCovered: 7, heatsUnfilled: 2 });
    metrics.mailSent('verification');
    metrics.mailFailed('password_reset');
    metrics.loginFailed();
    metrics.accountLockedOut();
    metrics.socketConnected();
    metrics.socketJoined('join_event_chat');
    metrics.socketMessageReceived('send_event_message');

    const body = await scrape(request);
    expect(sample(body, 'wcs_chat_messages_stored_total', { kind: 'event' })).toBe(2);
    expect(sample(body, 'wcs_chat_messages_stored_total', { kind: 'private' })).toBe(1);
    expect(sample(body, 'wcs_matching_run_duration_seconds_count', { outcome: 'completed' })).toBe(1);
    expect(sample(body, 'wcs_matching_heats_covered_total')).toBe(7);
    expect(sample(body, 'wcs_matching_heats_unfilled_total')).toBe(2);
    expect(sample(body, 'wcs_mails_sent_total', { kind: 'verification' })).toBe(1);
    expect(sample(body, 'wcs_mails_failed_total', { kind: 'password_reset' })).toBe(1);
    expect(sample(body, 'wcs_login_failures_total')).toBe(1);
    expect(sample(body, 'wcs_account_lockouts_total')).toBe(1);
    expect(sample(body, 'wcs_socketio_connected_sockets')).toBe(1);
    expect(sample(body, 'wcs_socketio_joins_total', { event: 'join_event_chat' })).toBe(1);
    expect(sample(body, 'wcs_socketio_messages_total', { event: 'send_event_message' })).toBe(1);
  });

  it('answers 401 without the bearer token', async () => {
    const { request } = appWithMetrics();
    const res = await request.get('/api/metrics');
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer realm="metrics"');
    expect(res.body).toEqual({
      success: false,
      error: 'A valid metrics token is required',
      code: 'METRICS_TOKEN_REQUIRED',
    });
  });

  it('answers 401 with a wrong bearer token', async () => {
    const { request } = appWithMetrics();
    const res = await request.get('/api/metrics').set('Authorization', `Bearer ${TOKEN}x`);
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('METRICS_TOKEN_REQUIRED');
  });

  it('answers 404 when METRICS_TOKEN is not configured, even with a bearer token', async () => {
    const { request } = appWithMetrics(null);
    const res = await request.get('/api/metrics').set('Authorization', `Bearer ${TOKEN}`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ success: false, error: 'Not found', code: 'NOT_FOUND' });
  });
});

describe('GET /api/metrics while the services report', () => {
  let server: TestServer;
  let capture: SmtpCapture;
  const sockets: ClientSocket[] = [];

  beforeAll(async () => {
    capture = await startSmtpCapture();
    server = await startTestServer({
      metrics: { token: TOKEN },
      smtp: captureSmtp(capture),
      lockout: { maxAttempts: 2 },
    });
    await server.container.mailQueue.startWorker();
  });
  afterAll(async () => {
    for (const s of sockets) s.close();
    await server.close();
    await capture.close();
  });

  /** Scrapes, runs `act`, scrapes again: `delta(name, labels)` is how far the series moved. */
  async function moved(act: () => Promise<void>) {
    const before = await scrape(server.request);
    await act();
    const after = await scrape(server.request);
    return (name: string, labels: Record<string, string> = {}) =>
      (sample(after, name, labels) ?? 0) - (sample(before, name, labels) ?? 0);
  }

  it('counts a failed login, and a lockout when the failures reach the limit', async () => {
    const user = await createUser();
    const wrong = { email: user.user.email, password: 'not-the-password' };
    const first = await moved(async () => {
      await server.request.post('/api/auth/login').send(wrong).expect(401);
    });
    expect(first('wcs_login_failures_total')).toBe(1);
    expect(first('wcs_account_lockouts_total')).toBe(0);

    const second = await moved(async () => {
      await server.request.post('/api/auth/login').send(wrong).expect(423);
    });
    expect(second('wcs_login_failures_total')).toBe(1);
    expect(second('wcs_account_lockouts_total')).toBe(1);
  });

  it('counts a socket, its join, its message and the stored event chat message', async () => {
    const event = await createEvent();
    const user = await createUser();
    await joinEvent(user.user, event);
    await ensureEventRoom(event);
    let socket: ClientSocket | undefined;
    const delta = await moved(async () => {
      socket = await connectSocket(server.url, user.token);
      sockets.push(socket);
      expect(await emitAck(socket, 'join_event_room', event.slug)).toMatchObject({ success: true });
      expect(await emitAck(socket, 'send_event_message', { content: 'counted' })).toMatchObject({ success: true });
    });
    expect(delta('wcs_socketio_connected_sockets')).toBe(1);
    expect(delta('wcs_socketio_joins_total', { event: 'join_event_room' })).toBe(1);
    expect(delta('wcs_socketio_messages_total', { event: 'join_event_room' })).toBe(1);
    expect(delta('wcs_socketio_messages_total', { event: 'send_event_message' })).toBe(1);
    expect(delta('wcs_chat_messages_stored_total', { kind: 'event' })).toBe(1);

    const gone = await moved(async () => {
      socket!.close();
      // the server sees the close shortly after the client
      for (let i = 0; i < 50 && sample(await scrape(server.request), 'wcs_socketio_connected_sockets') !== 0; i++) {
        await new Promise((r) => setTimeout(r, 20));
      }
    });
    expect(gone('wcs_socketio_connected_sockets')).toBe(-1);
  });

  it('counts a private chat message as kind "private"', async () => {
    const { event, alice, bob } = await createTrio();
    const match = await insertMatch(event, alice.user, bob.user, 'accepted');
    const delta = await moved(async () => {
      const socket = await connectSocket(server.url, alice.token);
      sockets.push(socket);
      expect(await emitAck(socket, 'join_private_room', { matchId: match.id })).toMatchObject({ success: true });
      expect(await emitAck(socket, 'send_private_message', { matchId: match.id, content: 'hi' })).toMatchObject({
        success: true,
      });
      // a refused message is received but not stored
      expect(await emitAck(socket, 'send_private_message', { matchId: match.id, content: '  ' })).toMatchObject({
        success: false,
      });
    });
    expect(delta('wcs_socketio_joins_total', { event: 'join_private_room' })).toBe(1);
    expect(delta('wcs_socketio_messages_total', { event: 'send_private_message' })).toBe(2);
    expect(delta('wcs_chat_messages_stored_total', { kind: 'private' })).toBe(1);
    expect(delta('wcs_chat_messages_stored_total', { kind: 'event' })).toBe(0);
  });

  it('observes a matching run: its duration, outcome and the heats covered and left unfilled', async () => {
    const { event, admin } = await scenario();
    const dancer = await person(event, { city: 'Berlin', country: 'Germany' });
    const recorder = await person(event, { city: 'Berlin', country: 'Germany' });
    const loner = await person(event, { city: 'Berlin', country: 'Germany', optOut: true });
    await heat(dancer, event, { n: 1 });
    await heat(recorder, event, { n: 2 });
    await heat(loner, event, { n: 1 });
    let run: { heatsAssigned: number; heatsUnassigned: number } | undefined;
    const delta = await moved(async () => {
      const res = await server.request.post(`/api/events/${event.slug}/run-matching`).set('Authorization', admin.auth);
      expect(res.status).toBe(201);
      run = res.body.data;
    });
    expect(delta('wcs_matching_run_duration_seconds_count', { outcome: 'completed' })).toBe(1);
    expect(delta('wcs_matching_run_duration_seconds_count', { outcome: 'failed' })).toBe(0);
    expect(delta('wcs_matching_heats_covered_total')).toBe(run!.heatsAssigned);
    expect(delta('wcs_matching_heats_unfilled_total')).toBe(run!.heatsUnassigned);
    expect(run!.heatsAssigned + run!.heatsUnassigned).toBe(3);
  });

  it('counts a mail the SMTP server accepted by kind', async () => {
    const user = await createUser();
    const delta = await moved(async () => {
      await server.request.post('/api/auth/request-password-reset').send({ email: user.user.email }).expect(200);
      await capture.mailTo(user.user.email);
      // the mailer counts once the SMTP server answered; the capture sees the mail just before
      for (
        let i = 0;
        i < 50 && !sample(await scrape(server.request), 'wcs_mails_sent_total', { kind: 'password_reset' });
        i++
      ) {
        await new Promise((r) => setTimeout(r, 20));
      }
    });
    expect(delta('wcs_mails_sent_total', { kind: 'password_reset' })).toBe(1);
    expect(delta('wcs_mails_failed_total', { kind: 'password_reset' })).toBe(0);
  });
});

describe('Mailer', () => {
  it('counts a mail the SMTP server did not accept as failed', async () => {
    const closed = await startSmtpCapture();
    await closed.close(); // nothing listens on its port any more
    const metrics = new Metrics({ defaultMetrics: false });
    const mailer = new Mailer(
      { smtp: captureSmtp(closed), mailFrom: 'service@example.test' },
      createLogger('silent'),
      metrics,
    );
    try {
      await expect(mailer.send(passwordResetMail('http://app.test', 'a@example.test', 'a', 'token'))).rejects.toThrow();
    } finally {
      mailer.close();
    }
    const body = (await metrics.scrape()).body;
    expect(sample(body, 'wcs_mails_failed_total', { kind: 'password_reset' })).toBe(1);
    expect(sample(body, 'wcs_mails_sent_total', { kind: 'password_reset' })).toBeUndefined();
  });
});

describe('OpenAPI document', () => {
  it('documents GET /metrics with its 401, 404 and 429 answers', async () => {
    const container = createTestContainer({}, { metrics: new Metrics({ defaultMetrics: false }) });
    containers.push(container);
    const res = await supertest(buildApp(container)).get('/api/docs/openapi.json');
    expect(res.status).toBe(200);
    // 400: the input guard runs before every route (a control character in the path or query)
    // 429: failed scrapes are rate limited per IP (tests/security/metrics-scrapes.test.ts)
    expect(Object.keys(res.body.paths['/metrics'].get.responses)).toEqual(['200', '400', '401', '404', '429']);
    expect(res.body.components.securitySchemes.metricsToken).toMatchObject({ type: 'http', scheme: 'bearer' });
  });
});

describe('METRICS_TOKEN', () => {
  it('is refused when shorter than 32 characters', () => {
    expect(() => loadConfig({ METRICS_TOKEN: 'short-token' })).toThrow(ConfigError);
    expect(() => loadConfig({ METRICS_TOKEN: 'short-token' })).toThrow(/METRICS_TOKEN: must be at least 32 characters/);
  });

  it('is read into config.metrics.token, and an empty value means unset', () => {
    expect(loadConfig({ METRICS_TOKEN: 'a-token-of-thirty-two-characters' }).metrics.token).toBe(
      'a-token-of-thirty-two-characters',
    );
    expect(loadConfig({ METRICS_TOKEN: '' }).metrics.token).toBeUndefined();
  });
});

describe('series names and build information', () => {
  it('starts every application series with wcs_; only the process defaults keep their standard names', async () => {
    const { request } = appWithMetrics();
    await request.get('/api/health').expect(200);
    const names = new Set(
      (await scrape(request))
        .split('\n')
        .filter((l) => l.startsWith('# TYPE '))
        .map((l) => l.split(' ')[2]),
    );
    const unprefixed = [...names].filter((n) => !n.startsWith('wcs_') && !/^(process|nodejs)_/.test(n));
    expect(unprefixed).toEqual([]);
    expect([...names].filter((n) => n.startsWith('wcs_')).length).toBeGreaterThan(10);
  });

  it('exports wcs_build_info = 1 labelled with the version, the commit and the Node.js version', async () => {
    const container = createTestContainer({
      metrics: { token: TOKEN },
      build: { version: '0.1.0', commit: 'abc1234' },
    });
    containers.push(container);
    const body = await scrape(supertest(buildApp(container)));
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- package.json read as the service reads it
    const pkg = require('../../package.json') as { version: string };
    expect(sample(body, 'wcs_build_info', { version: pkg.version, commit: 'abc1234', node: process.version })).toBe(1);
  });

  it('reads BUILD_COMMIT and package.json into the build labels, "unknown" without a commit', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- package.json read as the service reads it
    const pkg = require('../../package.json') as { version: string };
    expect(loadConfig({ BUILD_COMMIT: 'deadbeef' }).build).toEqual({ version: pkg.version, commit: 'deadbeef' });
    expect(loadConfig({}).build.commit).toBe('unknown');
  });
});

describe('mail queue gauges', () => {
  it('shows a queued mail, then the same mail as failed once its last try was refused', async () => {
    const closed = await startSmtpCapture();
    await closed.close(); // nothing listens on its port any more: every try fails
    const container = createTestContainer({
      metrics: { token: TOKEN },
      smtp: captureSmtp(closed),
      mailQueue: { name: `metrics_${Date.now()}`, retryLimit: 0, pollingIntervalSeconds: 1 },
    });
    containers.push(container);
    const request = supertest(buildApp(container));
    const register = await request
      .post('/api/auth/register')
      .send({ username: `gauge_${Date.now()}`, email: `gauge${Date.now()}@example.test`, password: 'a-good-password' });
    expect(register.status).toBe(201);
    const queued = await scrape(request);
    expect(sample(queued, 'wcs_mail_queue_mails', { state: 'queued' })).toBe(1);
    expect(sample(queued, 'wcs_mail_queue_mails', { state: 'failed' })).toBe(0);

    await container.mailQueue.startWorker();
    let body = queued;
    for (let i = 0; i < 150 && sample(body, 'wcs_mail_queue_mails', { state: 'failed' }) !== 1; i++) {
      await new Promise((r) => setTimeout(r, 100));
      body = await scrape(request);
    }
    expect(sample(body, 'wcs_mail_queue_mails', { state: 'failed' })).toBe(1);
    expect(sample(body, 'wcs_mail_queue_mails', { state: 'queued' })).toBe(0);
    expect(sample(body, 'wcs_mails_failed_total', { kind: 'verification' })).toBe(1);
  });
});

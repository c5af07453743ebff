import supertest from 'supertest';
import { buildApp } from '../../src/app';
import type { Container } from '../../src/container';
import { createTestContainer } from '../helpers/container';
import { ConfigError } from '../../src/config/config-error';
import { loadConfig } from '../../src/config/index';
import { Metrics } from '../../src/lib/metrics';

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
    expect(sample(res.text, 'db_pool_connections', { state: 'idle' })).toBeGreaterThanOrEqual(0);
    expect(sample(res.text, 'db_pool_connections', { state: 'in_use' })).toBeGreaterThanOrEqual(0);
    expect(sample(res.text, 'db_pool_waiting_requests')).toBe(0);
  });

  it('counts the SQL statements sent through the pool: one per GET /api/health', async () => {
    const { request } = appWithMetrics();
    await request.get('/api/health').expect(200);
    const before = sample(await scrape(request), 'db_queries_total') ?? 0;
    await request.get('/api/health').expect(200);
    await request.get('/api/health').expect(200);
    expect(sample(await scrape(request), 'db_queries_total')).toBe(before + 2);
  });

  it('counts requests by route template, never by raw URL', async () => {
    const { request } = appWithMetrics();
    await request.get('/api/health').expect(200);
    await request.get('/api/health').expect(200);
    await request.get('/api/events/no-such-event-slug-x1').expect(404);
    await request.get('/api/no-such-path').expect(404);

    const body = await scrape(request);
    const count = (route: string, status: string) =>
      sample(body, 'http_request_duration_seconds_count', { method: 'GET', route, status });
    expect(count('/api/health', '200')).toBe(2);
    expect(count('/api/events/:slug', '404')).toBe(1);
    expect(count('unmatched', '404')).toBe(1);
    expect(body).not.toContain('no-such-event-slug-x1');
    expect(body).not.toContain('no-such-path');
  });

  it('moves the request series between two scrapes', async () => {
    const { request } = appWithMetrics();
    const labels = { method: 'GET', route: '/api/health', status: '200' };
    const before = sample(await scrape(request), 'http_request_duration_seconds_count', labels) ?? 0;
    await request.get('/api/health').expect(200);
    await request.get('/api/health').expect(200);
    await request.get('/api/health').expect(200);
    const after = sample(await scrape(request), 'http_request_duration_seconds_count', labels);
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
    expect(sample(body, 'chat_messages_stored_total', { kind: 'event' })).toBe(2);
    expect(sample(body, 'chat_messages_stored_total', { kind: 'private' })).toBe(1);
    expect(sample(body, 'matching_run_duration_seconds_count', { outcome: 'completed' })).toBe(1);
    expect(sample(body, 'matching_heats_covered_total')).toBe(7);
    expect(sample(body, 'matching_heats_unfilled_total')).toBe(2);
    expect(sample(body, 'mails_sent_total', { kind: 'verification' })).toBe(1);
    expect(sample(body, 'mails_failed_total', { kind: 'password_reset' })).toBe(1);
    expect(sample(body, 'login_failures_total')).toBe(1);
    expect(sample(body, 'account_lockouts_total')).toBe(1);
    expect(sample(body, 'socketio_connected_sockets')).toBe(1);
    expect(sample(body, 'socketio_joins_total', { event: 'join_event_chat' })).toBe(1);
    expect(sample(body, 'socketio_messages_total', { event: 'send_event_message' })).toBe(1);
  });

  it('answers 401 without the bearer token', async () => {
    const { request } = appWithMetrics();
    const res = await request.get('/api/metrics');
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer realm="metrics"');
    expect(res.body).toEqual({ success: false, error: 'A valid metrics token is required', code: 'METRICS_TOKEN_REQUIRED' });
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

describe('OpenAPI document', () => {
  it('documents GET /metrics with its 401 and 404 answers', async () => {
    const container = createTestContainer({}, { metrics: new Metrics({ defaultMetrics: false }) });
    containers.push(container);
    const res = await supertest(buildApp(container)).get('/api/docs/openapi.json');
    expect(res.status).toBe(200);
    // 400: the input guard runs before every route (a control character in the path or query)
    expect(Object.keys(res.body.paths['/metrics'].get.responses)).toEqual(['200', '400', '401', '404']);
    expect(res.body.components.securitySchemes.metricsToken).toMatchObject({ type: 'http', scheme: 'bearer' });
  });
});

describe('METRICS_TOKEN', () => {
  it('is refused when shorter than 16 characters', () => {
    expect(() => loadConfig({ METRICS_TOKEN: 'short-token' })).toThrow(ConfigError);
    expect(() => loadConfig({ METRICS_TOKEN: 'short-token' })).toThrow(/METRICS_TOKEN: must be at least 16 characters/);
  });

  it('is read into config.metrics.token, and an empty value means unset', () => {
    expect(loadConfig({ METRICS_TOKEN: 'a-token-of-sixteen+' }).metrics.token).toBe('a-token-of-sixteen+');
    expect(loadConfig({ METRICS_TOKEN: '' }).metrics.token).toBeUndefined();
  });
});

import { withTestContainer } from '../helpers/container';
import { api } from '../helpers/server';

describe('HTTP basics', () => {
  it('answers GET /api/health with the database status', async () => {
    const res = await api().get('/api/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { status: 'ok', database: 'up', databaseKind: 'postgres' } });
  });

  it('answers an unknown /api path with 404 in the error envelope', async () => {
    const res = await api().get('/api/does-not-exist');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ success: false, error: 'Not found', code: 'NOT_FOUND' });
  });

  it('answers a malformed JSON body with 400 "Malformed JSON body"', async () => {
    const res = await api().post('/api/anything').set('Content-Type', 'application/json').send('{"a":');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, error: 'Malformed JSON body', code: 'MALFORMED_JSON' });
  });

  it('answers a body over 100 kB with 413', async () => {
    const big = JSON.stringify({ text: 'x'.repeat(110 * 1024) });
    const res = await api().post('/api/anything').set('Content-Type', 'application/json').send(big);
    expect(res.status).toBe(413);
    expect(res.body.success).toBe(false);
    expect(res.body.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('sets security headers, hides the framework and echoes a request id', async () => {
    const res = await api().get('/api/health').set('X-Request-Id', 'trace-123');
    expect(res.headers['x-powered-by']).toBeUndefined();
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-request-id']).toBe('trace-123');
  });

  it('serves the OpenAPI document', async () => {
    const res = await api().get('/api/docs/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(res.body.paths['/health']).toBeDefined();
  });
});

describe('database unreachable', () => {
  it('answers /api/health with 503 and never a stack trace', async () => {
    const { status, body } = await withTestContainer(
      { databaseUrl: 'postgresql://postgres@127.0.0.1:1/nowhere' },
      (c) => api(c).get('/api/health'),
    );
    expect(status).toBe(503);
    expect(body).toEqual({
      success: false,
      error: 'Service temporarily unavailable',
      code: 'SERVICE_UNAVAILABLE',
      data: { status: 'degraded', database: 'down', databaseKind: 'postgres' },
    });
  });
});

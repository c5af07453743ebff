import { Writable } from 'node:stream';
import express from 'express';
import pino from 'pino';
import { AppError } from '../../src/lib/errors';
import { errorHandler } from '../../src/middleware/error-handler';
import { createRequestLogger } from '../../src/middleware/request-logger';
import { useServedApps } from '../helpers/http-stub';

type Line = Record<string, unknown> & { level: number; msg: string };

// An app of its own, called with fetch (supertest answers are checked against the OpenAPI
// document by tests/setup/after-env.ts).

const serve = useServedApps();

/** An app with the request logger and the error handler around a few routes; its log lines. */
async function appWithLog() {
  const lines: Line[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Line);
      done();
    },
  });
  const logger = pino({ level: 'info' }, sink);
  const app = express();
  app.use(createRequestLogger(logger));
  app.get('/v/ok', (_req, res) => void res.json({ ok: true }));
  app.get('/v/missing', () => {
    throw new AppError('EVENT_NOT_FOUND');
  });
  app.get('/v/broken', () => {
    throw new Error('boom in the handler');
  });
  app.get('/api/health', (_req, res) => void res.json({ ok: true }));
  app.use(errorHandler(logger));
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  return { request: await serve(app), lines, settle };
}

describe('request log', () => {
  it('writes one info line per request: id, method, URL without secrets, status and time', async () => {
    const { request, lines, settle } = await appWithLog();
    const res = await request.get('/v/ok?token=secret-value&x=1', { 'X-Request-Id': 'trace-9' });
    await settle();
    expect(res.headers.get('x-request-id')).toBe('trace-9');
    expect(lines).toEqual([
      expect.objectContaining({
        level: 30,
        msg: 'request completed',
        req: { id: 'trace-9', method: 'GET', url: '/v/ok?token=[redacted]&x=1' },
        res: { statusCode: 200 },
        responseTime: expect.any(Number),
      }),
    ]);
    expect(JSON.stringify(lines)).not.toContain('secret-value');
  });

  it('gives a request without a usable id a new one', async () => {
    const { request, lines, settle } = await appWithLog();
    const res = await request.get('/v/ok', { 'X-Request-Id': 'bad id with spaces' });
    await settle();
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect((lines[0].req as { id: string }).id).toBe(res.headers.get('x-request-id'));
  });

  it('writes a 4xx at warn with its code', async () => {
    const { request, lines, settle } = await appWithLog();
    expect((await request.get('/v/missing')).status).toBe(404);
    await settle();
    expect(lines).toEqual([expect.objectContaining({ level: 40, code: 'EVENT_NOT_FOUND', res: { statusCode: 404 } })]);
  });

  it('writes a 500 once, at error, with its code and the cause with its stack', async () => {
    const { request, lines, settle } = await appWithLog();
    const res = await request.get('/v/broken');
    await settle();
    expect(res.status).toBe(500);
    expect(JSON.stringify(res.body)).not.toContain('boom');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 50,
      msg: 'request failed',
      code: 'INTERNAL_ERROR',
      res: { statusCode: 500 },
    });
    expect((lines[0].err as { message: string; stack: string }).message).toBe('boom in the handler');
    expect((lines[0].err as { stack: string }).stack).toContain('request-log.test');
  });

  it('writes a successful health probe at debug only', async () => {
    const { request, lines, settle } = await appWithLog();
    expect((await request.get('/api/health')).status).toBe(200);
    await settle();
    expect(lines).toEqual([]);
  });
});

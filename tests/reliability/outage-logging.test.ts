import { Writable } from 'node:stream';
import pino from 'pino';
import supertest from 'supertest';
import { buildApp } from '../../src/app';
import type { Container } from '../../src/container';
import { createTestContainer } from '../helpers/container';
import { createUser } from '../helpers/factories';

/**
 * Issue 16, item 7: during a database outage each failed request is logged once (not by both
 * the request logger and the error handler), at `warn`, with its code and without a stack.
 */
function captureLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean))
        lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { lines, logger: pino({ level: 'info' }, stream) };
}

describe('logging during a database outage', () => {
  let container: Container;
  const capture = captureLogger();

  let auth: string;

  beforeAll(async () => {
    ({ auth } = await createUser());
    // Nothing listens on port 1: every query fails with ECONNREFUSED.
    container = createTestContainer(
      { databaseUrl: 'postgresql://nobody@127.0.0.1:1/outage' },
      { logger: capture.logger },
    );
  });
  afterAll(async () => {
    await container.close();
  });

  it('writes one warn line without a stack per 503 response', async () => {
    const app = buildApp(container);
    const count = 5;
    for (let i = 0; i < count; i++) {
      const res = await supertest(app).get('/api/events/some-event/details').set('Authorization', auth);
      expect(res.status).toBe(503);
    }
    const problems = capture.lines.filter((l) => (l.level as number) >= 40);
    expect(problems).toHaveLength(count);
    for (const line of problems) {
      expect(line.level).toBe(40);
      expect(line.code).toBe('SERVICE_UNAVAILABLE');
      expect((line.res as { statusCode: number }).statusCode).toBe(503);
      expect(JSON.stringify(line)).not.toMatch(/stack|ECONNREFUSED/);
    }
  });
});

import { Writable } from 'node:stream';
import { Client } from 'pg';
import pino from 'pino';
import { createClient } from 'redis';
import { unhandledRejectionPolicy } from '../../src/lib/connection-loss';
import { freePort } from '../helpers/process';

/**
 * Issue 23, items 1 and 2: the process-wide unhandled-rejection policy of src/server.ts. A lost
 * database or Redis connection surfacing in a background task (pg-boss's unawaited complete, the
 * Redis adapter's unawaited publish) is a throttled warning and the process keeps running;
 * anything else still shuts it down. Fed with the errors the real clients produce.
 */
function capture() {
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

async function databaseRefusal(): Promise<unknown> {
  const client = new Client({
    connectionString: `postgresql://nobody@127.0.0.1:${await freePort()}/gone`,
    connectionTimeoutMillis: 2000,
  });
  return client.connect().then(
    () => new Error('connected'),
    (err: unknown) => err,
  );
}

async function closedRedisClient(): Promise<unknown> {
  const client = createClient({ url: `redis://127.0.0.1:${await freePort()}` });
  return client.publish('channel', 'message').then(
    () => new Error('published'),
    (err: unknown) => err,
  );
}

describe('the unhandled-rejection policy', () => {
  it('logs a lost database connection as one warning per interval and keeps running', async () => {
    const { lines, logger } = capture();
    const fatal = jest.fn();
    const policy = unhandledRejectionPolicy(logger, fatal, 60_000);
    const err = await databaseRefusal();
    for (let i = 0; i < 5; i++) policy(err);
    await new Promise((resolve) => setImmediate(resolve));
    expect(fatal).not.toHaveBeenCalled();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 40, backing: 'database', reason: expect.stringContaining('ECONNREFUSED') });
    expect(JSON.stringify(lines[0])).not.toContain('stack');
  });

  it('logs a Redis client that cannot send as a warning and keeps running', async () => {
    const { lines, logger } = capture();
    const fatal = jest.fn();
    unhandledRejectionPolicy(logger, fatal)(await closedRedisClient());
    await new Promise((resolve) => setImmediate(resolve));
    expect(fatal).not.toHaveBeenCalled();
    expect(lines).toEqual([expect.objectContaining({ level: 40, backing: 'redis' })]);
  });

  it('still shuts down on any other unhandled rejection', async () => {
    const { lines, logger } = capture();
    const fatal = jest.fn();
    unhandledRejectionPolicy(logger, fatal)(new TypeError("Cannot read properties of undefined (reading 'id')"));
    await new Promise((resolve) => setImmediate(resolve));
    expect(fatal).toHaveBeenCalledTimes(1);
    expect(lines).toEqual([expect.objectContaining({ level: 50, msg: 'unhandled promise rejection: shutting down' })]);
  });
});

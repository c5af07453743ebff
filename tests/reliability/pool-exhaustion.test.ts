import { startTestServer, type TestServer } from '../helpers/server';
import { createUser, type TestUser } from '../helpers/factories';
import { until } from '../helpers/server-process';
import { connectSocket, emitAck, type ClientSocket } from '../helpers/socket';

interface HeldConnection {
  /** gives the connection back: ends the holding transaction and waits for it */
  release(): Promise<void>;
}

/** Takes the pool's only connection with an interactive transaction that stays open until released. */
async function holdTheOnlyConnection(server: TestServer): Promise<HeldConnection> {
  let letGo: () => void = () => undefined;
  let holding: Promise<unknown> = Promise.resolve();
  await new Promise<void>((held) => {
    holding = server.container.prisma.$transaction(
      async (tx) => {
        await tx.$queryRaw`SELECT 1`;
        held();
        await new Promise<void>((r) => (letGo = r));
      },
      { maxWait: 60_000, timeout: 60_000 },
    );
  });
  return {
    release: async () => {
      letGo();
      await holding;
    },
  };
}

/**
 * Issue 16, item 2: with every pool connection busy, a request waits DATABASE_POOL_TIMEOUT_MS
 * for one and then answers 503 with Retry-After (a socket event: an ack with the code), never 500.
 * The pool has one connection, held by an open interactive transaction until the answers are in.
 */
describe('pool exhaustion', () => {
  let server: TestServer;
  let member: TestUser;
  let socket: ClientSocket;
  let connection: HeldConnection | undefined;

  beforeAll(async () => {
    member = await createUser();
    server = await startTestServer({ databasePool: { size: 1, timeoutMs: 1000 } });
    // Open the pool's connection first (opening one also counts against the wait on a busy machine).
    await until(() => server.container.database.ping());
    socket = await connectSocket(server.url, member.token);
    connection = await holdTheOnlyConnection(server);
  });

  afterAll(async () => {
    await connection?.release();
    socket?.close();
    await server?.close();
  });

  it('answers concurrent requests 503 SERVICE_UNAVAILABLE with Retry-After, none 500', async () => {
    const responses = await Promise.all(
      Array.from({ length: 20 }, () =>
        server.request.get('/api/events/some-event/details').set('Authorization', member.auth),
      ),
    );
    for (const res of responses) {
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toBe('1');
      expect(res.body).toEqual({
        success: false,
        error: 'Service temporarily unavailable',
        code: 'SERVICE_UNAVAILABLE',
      });
    }
  });

  it('acknowledges a socket event with code SERVICE_UNAVAILABLE', async () => {
    const ack = await emitAck(socket, 'webrtc_signal', { matchSlug: 'some-match', kind: 'hangup' });
    expect(ack).toEqual({ success: false, error: 'Service temporarily unavailable', code: 'SERVICE_UNAVAILABLE' });
  });

  it('refuses a socket handshake with code SERVICE_UNAVAILABLE, not as a bad token', async () => {
    const refusal = (await connectSocket(server.url, member.token).then(
      () => undefined,
      (err: unknown) => err,
    )) as Error & { data?: unknown };
    expect(refusal.message).toBe('Service temporarily unavailable');
    expect(refusal.data).toEqual({ code: 'SERVICE_UNAVAILABLE' });
  });

  it('serves again once the connection is free', async () => {
    await connection?.release();
    const res = await server.request.get('/api/events/no-such-event/details').set('Authorization', member.auth);
    expect(res.status).toBe(404);
  });
});

describe('a full wait queue', () => {
  let server: TestServer;
  let member: TestUser;
  let connection: HeldConnection | undefined;

  beforeAll(async () => {
    member = await createUser();
    // One connection, a wait long enough never to run out here, room for one waiting query.
    server = await startTestServer({ databasePool: { size: 1, timeoutMs: 60_000, queueSize: 1 } });
    connection = await holdTheOnlyConnection(server);
  });
  afterAll(async () => {
    await connection?.release();
    await server?.close();
  });

  it('refuses the requests past the queue at once with 503 and serves the queued one when a connection frees up', async () => {
    const pending = Array.from({ length: 5 }, () =>
      server.request
        .get('/api/events/no-such-event/details')
        .set('Authorization', member.auth)
        .then((res) => res),
    );
    const settled: number[] = [];
    pending.forEach((p) => void p.then((res) => settled.push(res.status)));
    // Four are refused while the connection is still held; one waits in the queue.
    await until(async () => settled.length >= 4);
    expect(settled).toEqual([503, 503, 503, 503]);
    void connection?.release();
    const statuses = (await Promise.all(pending)).map((res) => res.status).sort();
    expect(statuses).toEqual([404, 503, 503, 503, 503]);
  });
});

describe('a transaction that waits for a connection', () => {
  let server: TestServer;
  let connection: HeldConnection | undefined;

  beforeAll(async () => {
    // The pool would wait 10 s for a connection; an interactive transaction gives up sooner (its maxWait).
    server = await startTestServer({ databasePool: { size: 1, timeoutMs: 10_000 } });
    connection = await holdTheOnlyConnection(server);
  });
  afterAll(async () => {
    await connection?.release();
    await server?.close();
  });

  it('answers 503 SERVICE_UNAVAILABLE, not 500, when it cannot start in time (a registration: the account and its mail)', async () => {
    const username = `waits_${Date.now()}`;
    const res = await server.request
      .post('/api/auth/register')
      .send({ username, email: `${username}@example.test`, password: 'secret123' });
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('1');
    expect(res.body).toEqual({ success: false, error: 'Service temporarily unavailable', code: 'SERVICE_UNAVAILABLE' });
  });
});

import { Client } from 'pg';
import { io as ioClient } from 'socket.io-client';
import { toAppError, toErrorResponse } from '../../src/middleware/error-handler';
import { prisma } from '../helpers/db';
import { createEvent, createUser, ensureEventRoom, joinEvent } from '../helpers/factories';
import { createTrio, insertMatch } from '../helpers/matches';
import { api, startTestServer, type TestServer } from '../helpers/server';
import {
  connectSocket,
  emitAck,
  nextEvent,
  receivesWithin,
  useSocketClients,
  type ClientSocket,
} from '../helpers/socket';

/**
 * Issue 23, item 5 (DECISIONS "Reliability", "Query parameters", "Signal data"): every 429 says
 * when to come back, an unknown socket event is answered, every handshake refusal carries a
 * code, a query parameter given twice is a 400 naming it, 22P02 is a 400, and a deeply nested
 * hangup is INVALID_SIGNAL.
 */
describe('Retry-After on every 429 of match requests', () => {
  it('MATCH_REQUESTS_RATE_LIMITED carries Retry-After: whole seconds until the bucket holds a request again', async () => {
    const { event, alice, bob } = await createTrio();
    let refused: { status: number; headers: Record<string, string>; body: Record<string, unknown> } | undefined;
    for (let i = 0; i < 15 && !refused; i++) {
      const res = await api()
        .post('/api/matches')
        .set('Authorization', alice.auth)
        .send({ targetUserId: bob.user.id, eventSlug: event.slug });
      if (res.status === 201)
        await api().delete(`/api/matches/${res.body.data.slug}`).set('Authorization', alice.auth).expect(200);
      else refused = res;
    }
    expect(refused).toMatchObject({ status: 429, body: { code: 'MATCH_REQUESTS_RATE_LIMITED' } });
    // 10 a minute: one request is back within 6 s
    expect(refused!.headers['retry-after']).toMatch(/^[1-6]$/);
  });

  it('TOO_MANY_PENDING_MATCHES carries Retry-After: 60', async () => {
    const { event, alice } = await createTrio();
    for (let i = 0; i < 20; i++) {
      const target = await createUser();
      await joinEvent(target.user, event);
      await insertMatch(event, alice.user, target.user, 'pending');
    }
    const extra = await createUser();
    await joinEvent(extra.user, event);
    const res = await api()
      .post('/api/matches')
      .set('Authorization', alice.auth)
      .send({ targetUserId: extra.user.id, eventSlug: event.slug });
    expect(res.status).toBe(429);
    expect(res.body.code).toBe('TOO_MANY_PENDING_MATCHES');
    expect(res.headers['retry-after']).toBe('60');
  });
});

describe('query parameters given twice or as a list', () => {
  it('answers 400 VALIDATION_ERROR naming limit and before on the chat history (never 500)', async () => {
    const event = await createEvent();
    await ensureEventRoom(event);
    const { user, auth } = await createUser();
    await joinEvent(user, event);
    for (const query of ['limit=5&limit=6', 'before=10&before=20', 'limit[]=5', 'before[a]=1']) {
      const res = await api().get(`/api/events/${event.slug}/messages?${query}`).set('Authorization', auth);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ success: false, error: 'Validation failed', code: 'VALIDATION_ERROR' });
      expect(res.body.details).toEqual([
        { field: query.startsWith('limit') ? 'limit' : 'before', message: 'must be given once, as a single value' },
      ]);
    }
  });

  it('answers 400 naming the parameter on any other route too', async () => {
    const { auth } = await createUser({ isAdmin: true });
    const res = await api().get('/api/admin/activity-logs?page=1&page=2').set('Authorization', auth);
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([{ field: 'page', message: 'must be given once, as a single value' }]);
    const events = await api().get('/api/events?x=1&x=2');
    expect(events.status).toBe(400);
    expect(events.body.details).toEqual([{ field: 'x', message: 'must be given once, as a single value' }]);
  });

  it('maps SQLSTATE 22P02 (text that is not of the type) from PostgreSQL to 400 VALIDATION_ERROR', async () => {
    const client = new Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
    const err = await client.query("SELECT 'ten'::int").catch((e: unknown) => e);
    await client.end();
    const prismaErr = await prisma.$queryRawUnsafe("SELECT 'ten'::int").catch((e: unknown) => e);
    for (const e of [err, prismaErr]) {
      expect(toAppError(e).code).toBe('VALIDATION_ERROR');
      expect(toErrorResponse(e).status).toBe(400);
    }
  });
});

describe('socket protocol gaps', () => {
  let server: TestServer;
  const connect = useSocketClients(() => server.url);
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server.close();
  });

  const refusal = (auth: Record<string, unknown>) =>
    new Promise<{ message: string; data?: { code?: string } }>((resolve, reject) => {
      const socket = ioClient(server.url, {
        path: '/socket.io',
        transports: ['websocket'],
        reconnection: false,
        forceNew: true,
        auth,
      });
      socket.once('connect', () => {
        socket.close();
        reject(new Error('connected'));
      });
      socket.once('connect_error', (err: Error & { data?: { code?: string } }) => {
        socket.close();
        resolve({ message: err.message, data: err.data });
      });
    });

  it('refuses a handshake without a token with data.code AUTH_REQUIRED, and a bad token with INVALID_TOKEN', async () => {
    expect(await refusal({})).toEqual({ message: 'Authentication required', data: { code: 'AUTH_REQUIRED' } });
    expect(await refusal({ token: 'not-a-jwt' })).toEqual({
      message: 'Invalid or expired token',
      data: { code: 'INVALID_TOKEN' },
    });
  });

  it('answers an unknown event sent with an acknowledgement with UNKNOWN_EVENT at once', async () => {
    const socket = await connect(await createUser());
    const ack = await new Promise((resolve) =>
      (socket.emit as (...a: unknown[]) => void)('no_such_event', { x: 1 }, resolve),
    );
    expect(ack).toEqual({ success: false, error: 'Unknown event', code: 'UNKNOWN_EVENT' });
  });

  it('answers an unknown event sent without an acknowledgement with error_message', async () => {
    const socket: ClientSocket = await connect(await createUser());
    const message = nextEvent(socket, 'error_message');
    (socket.emit as (...a: unknown[]) => void)('no_such_event', 'payload');
    expect(await message).toEqual({ error: 'Unknown event' });
    // the socket keeps working
    expect(await emitAck(socket, 'leave_event_room')).toMatchObject({ success: true });
  });

  it('refuses a hangup nested deeper than 8 levels with INVALID_SIGNAL (checked before serialising) and relays nothing', async () => {
    const trio = await createTrio();
    const match = await insertMatch(trio.event, trio.alice.user, trio.bob.user, 'accepted');
    const [a, b] = [await connectSocket(server.url, trio.alice.token), await connectSocket(server.url, trio.bob.token)];
    try {
      const nest = (levels: number) => {
        let data: Record<string, unknown> = { reason: 'done' };
        for (let i = 1; i < levels; i++) data = { inner: data };
        return data;
      };
      const relayed = receivesWithin(b, 'webrtc_signal', 1500);
      for (const levels of [9, 1000]) {
        const ack = await emitAck(a, 'webrtc_signal', { matchSlug: match.slug, kind: 'hangup', data: nest(levels) });
        expect(ack).toMatchObject({ success: false, code: 'INVALID_SIGNAL' });
      }
      expect(await relayed).toBe(false);
    } finally {
      a.close();
      b.close();
    }
  });
});

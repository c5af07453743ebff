import { query } from 'express-validator';
import { prisma } from '../helpers/db';
import { createAdmin, createEvent, createUser, ensureEventRoom, joinEvent } from '../helpers/factories';
import { createTrio, insertMatch } from '../helpers/matches';
import { api, useTestServer } from '../helpers/server';
import { connectSocket, emitAck, nextEvent, type ClientSocket } from '../helpers/socket';
import { DATE_MAX, DATE_MIN, INT32_MAX, isoDate, parseInt32 } from '../../src/middleware/validators';
import { AppError } from '../../src/lib/errors';
import { toAppError } from '../../src/middleware/error-handler';

/**
 * Malformed input is refused as a class at the edge (src/middleware/input-guard.ts): a control
 * character in a path or query, U+0000 in any JSON string, a body that is not a JSON object.
 */
const validationFailed = (field: string) =>
  expect.objectContaining({
    success: false,
    error: 'Validation failed',
    code: 'VALIDATION_ERROR',
    details: [expect.objectContaining({ field })],
  });

describe('a control character in a path parameter', () => {
  it.each([
    ['GET', '/api/events/%00'],
    ['GET', '/api/events/%00/details'],
    ['GET', '/api/events/%00/messages'],
    ['GET', '/api/matches/%00'],
    ['GET', '/api/users/%00'],
    ['POST', '/api/events/checkin/%00'],
    ['GET', '/api/users/ab%00cd/ratings'],
    ['DELETE', '/api/events/x%1By/leave'],
  ])('%s %s answers 400 "Validation failed" with details', async (method, path) => {
    const { auth } = await createUser();
    const req = method === 'GET' ? api().get(path) : method === 'POST' ? api().post(path) : api().delete(path);
    const res = await req.set('Authorization', auth);
    expect(res.status).toBe(400);
    expect(res.body).toEqual(validationFailed('path'));
  });

  it('is refused before authentication (no token needed to get the 400)', async () => {
    const res = await api().get('/api/matches/%00');
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
  });

  it('leaves a path that is not valid percent-encoding to the router (400, not 500)', async () => {
    const { auth } = await createUser();
    const res = await api().get('/api/events/%E0%A4%A').set('Authorization', auth);
    expect(res.status).toBe(400);
  });
});

describe('a control character in a query value or key', () => {
  it('GET /admin/activity-logs?username=%00 answers 400 naming the parameter', async () => {
    const { auth } = await createAdmin();
    const res = await api().get('/api/admin/activity-logs?username=a%00b').set('Authorization', auth);
    expect(res.status).toBe(400);
    expect(res.body).toEqual(validationFailed('username'));
  });

  it('GET /admin/activity-logs?action=login%00 answers 400 (not a database error)', async () => {
    const { auth } = await createAdmin();
    const res = await api().get('/api/admin/activity-logs?action=login%00').set('Authorization', auth);
    expect(res.status).toBe(400);
    expect(res.body).toEqual(validationFailed('action'));
  });

  it('refuses a control character in a query key too (an ignored parameter)', async () => {
    const { auth } = await createUser();
    const res = await api().get('/api/events?x%00y=1').set('Authorization', auth);
    expect(res.status).toBe(400);
    expect(res.body).toEqual(validationFailed('x?y'));
  });
});

describe('U+0000 in a JSON string', () => {
  it('PATCH /users/me with firstName "a\\u0000b" answers 400 and stores nothing', async () => {
    const { user, auth } = await createUser({ firstName: 'Before' });
    const res = await api().patch('/api/users/me').set('Authorization', auth).send({ firstName: 'a\u0000b' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(validationFailed('firstName'));
    expect((await prisma.user.findUniqueOrThrow({ where: { id: user.id } })).firstName).toBe('Before');
  });

  it('POST /matches/:slug/ratings with a NUL in the comment answers 400', async () => {
    const { event, alice, bob } = await createTrio();
    const match = await insertMatch(event, alice.user, bob.user, 'accepted');
    const res = await api()
      .post(`/api/matches/${match.slug}/ratings`)
      .set('Authorization', alice.auth)
      .send({ score: 5, comment: 'great\u0000' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(validationFailed('comment'));
  });

  it('finds a NUL at any depth and in keys (POST /events/:slug/heats)', async () => {
    const { auth } = await createUser();
    const deep = await api()
      .post('/api/events/abc/heats')
      .set('Authorization', auth)
      .send({ heats: [{ divisionId: 1, competitionTypeId: 1, heatNumber: 1, role: 'Lead\u0000' }] });
    expect(deep.status).toBe(400);
    expect(deep.body).toEqual(validationFailed('heats[0].role'));
    const key = await api()
      .post('/api/events/abc/heats')
      .set('Authorization', auth)
      .send({ ['he\u0000ats']: [] });
    expect(key.status).toBe(400);
    expect(key.body.code).toBe('VALIDATION_ERROR');
  });

  it('keeps tabs and newlines in JSON strings (a chat message may hold them)', async () => {
    // (names, cities and countries refuse them: tests/security/names-and-csv.test.ts)
    const admin = await createAdmin();
    const event = await createEvent();
    const res = await api()
      .patch(`/api/admin/events/${event.slug}`)
      .set('Authorization', admin.auth)
      .send({ description: 'Line\tone\nline two' });
    expect(res.status).toBe(200);
    expect((await prisma.event.findUniqueOrThrow({ where: { id: event.id } })).description).toBe('Line\tone\nline two');
  });
});

describe('a body that is not a JSON object', () => {
  it.each([
    ['PATCH', '/api/users/me', '[]'],
    ['PATCH', '/api/users/me', '"text"'],
    ['PATCH', '/api/users/me', '42'],
    ['PATCH', '/api/users/me', 'null'],
    ['POST', '/api/auth/login', '[{"email":"a@b.c"}]'],
    ['PATCH', '/api/admin/events/abc', '[]'],
  ])('%s %s with %s answers 400 "Validation failed"', async (method, path, raw) => {
    const { auth } = await createAdmin();
    const req = method === 'POST' ? api().post(path) : api().patch(path);
    const res = await req.set('Authorization', auth).set('Content-Type', 'application/json').send(raw);
    expect(res.status).toBe(400);
    expect(res.body).toEqual(validationFailed('body'));
  });

  it('PATCH /admin/events/:slug with [] changes nothing', async () => {
    const { auth } = await createAdmin();
    const event = await createEvent({ name: 'Unchanged' });
    const res = await api()
      .patch(`/api/admin/events/${event.slug}`)
      .set('Authorization', auth)
      .set('Content-Type', 'application/json')
      .send('[]');
    expect(res.status).toBe(400);
    expect((await prisma.event.findUniqueOrThrow({ where: { id: event.id } })).name).toBe('Unchanged');
  });

  it('still answers a request without a body as before (the handler sees {})', async () => {
    const { auth } = await createUser();
    const res = await api().patch('/api/users/me').set('Authorization', auth);
    expect(res.status).toBe(200);
  });
});

describe('U+0000 in a socket payload', () => {
  const server = useTestServer();
  const sockets: ClientSocket[] = [];
  afterAll(() => sockets.forEach((s) => s.close()));

  it('send_event_message with a NUL answers "Validation failed" and stores nothing', async () => {
    const event = await createEvent();
    await ensureEventRoom(event);
    const member = await createUser();
    await joinEvent(member.user, event);
    const socket = await connectSocket(server.url, member.token);
    sockets.push(socket);
    expect(await emitAck(socket, 'join_event_room', event.slug)).toMatchObject({ success: true });
    const ack = await emitAck(socket, 'send_event_message', { content: 'hi\u0000there' });
    expect(ack).toEqual({ success: false, error: 'Validation failed', code: 'VALIDATION_ERROR' });
    expect(await prisma.message.count({ where: { userId: member.user.id } })).toBe(0);
  });

  it.each([2 ** 31, 2 ** 53, 1e308])(
    'join_private_room with matchId %p answers "Validation failed", not a server error',
    async (matchId) => {
      const member = await createUser();
      const socket = await connectSocket(server.url, member.token);
      sockets.push(socket);
      expect(await emitAck(socket, 'join_private_room', { matchId })).toMatchObject({
        success: false,
        code: 'VALIDATION_ERROR',
      });
    },
  );

  it('without an ack the refusal arrives as error_message', async () => {
    const member = await createUser();
    const socket = await connectSocket(server.url, member.token);
    sockets.push(socket);
    const pushed = nextEvent<{ error: string }>(socket, 'error_message');
    socket.emit('join_event_room', 'a\u0000b' as never);
    await expect(pushed).resolves.toEqual({ error: 'Validation failed' });
  });
});

describe('date atom isoDate', () => {
  const run = async (value: string) => {
    const req = { query: { from: value } } as never;
    const result = await isoDate(query('from'), 'from').run(req);
    return {
      errors: result.array().map((e) => String(e.msg)),
      value: (req as { query: { from: unknown } }).query.from,
    };
  };

  it.each([
    '0000-01-01',
    '1899-12-31T23:59:59Z',
    '9999-12-31T23:59:59-14:00',
    '+275760-09-13T00:00:00Z',
    '2023-02-30',
    'yesterday',
  ])('refuses %s', async (value) => {
    expect((await run(value)).errors).toHaveLength(1);
  });

  it('accepts the bounds and converts to a Date', async () => {
    expect(await run('1900-01-01T00:00:00Z')).toEqual({ errors: [], value: DATE_MIN });
    expect(await run('9999-12-31T23:59:59.999Z')).toEqual({ errors: [], value: DATE_MAX });
    expect((await run('2026-06-01')).value).toEqual(new Date('2026-06-01'));
  });

  it('refuses what is not a string (an array, a number)', async () => {
    for (const value of [[], 20260101, { a: 1 }]) {
      const req = { body: { startDate: value } } as never;
      const { body } = await import('express-validator');
      expect((await isoDate(body('startDate'), 'startDate').run(req)).isEmpty()).toBe(false);
    }
  });
});

describe('int32 ids of socket payloads (parseInt32)', () => {
  it.each([2 ** 31, 2 ** 53, -1, 0, 1.5, '5', null, undefined, [1]])(
    'refuses %p with 400 "Validation failed" naming the field',
    (value) => {
      let error: unknown;
      try {
        parseInt32(value, 'matchId');
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(AppError);
      expect(error).toMatchObject({
        status: 400,
        code: 'VALIDATION_ERROR',
        details: [{ field: 'matchId', message: expect.any(String) }],
      });
    },
  );

  it('accepts 1 and 2^31 - 1', () => {
    expect(parseInt32(1, 'matchId')).toBe(1);
    expect(parseInt32(INT32_MAX, 'matchId')).toBe(INT32_MAX);
  });
});

describe('the error mapper under validation', () => {
  it.each([
    ['an id of 2^31', () => prisma.match.findUnique({ where: { id: 2 ** 31 } })],
    ['U+0000 in text', () => prisma.user.findUnique({ where: { username: 'a\u0000b' } })],
    ['year 0', () => prisma.activityLog.findFirst({ where: { createdAt: { gte: new Date('0000-01-01') } } })],
  ])('maps a database refusal of %s to 400, never 500', async (_name, query) => {
    const err = await query().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(toAppError(err)).toMatchObject({ status: 400, code: 'BAD_REQUEST' });
  });
});

describe('dates out of range in the features (the isoDate atom)', () => {
  it.each([
    ['POST', { startDate: [] }],
    ['POST', { endDate: [] }],
    ['POST', { startDate: '0000-01-01' }],
    ['PATCH', { startDate: [] }],
    ['PATCH', { endDate: '9999-12-31T23:59:59-14:00' }],
  ])('%s /admin/events with %j answers 400 "Validation failed"', async (method, dates) => {
    const { auth } = await createAdmin();
    const event = await createEvent();
    const body = { name: 'Dates', location: 'Here', startDate: '2031-01-01', endDate: '2031-01-02', ...dates };
    const res =
      method === 'POST'
        ? await api().post('/api/admin/events').set('Authorization', auth).send(body)
        : await api().patch(`/api/admin/events/${event.slug}`).set('Authorization', auth).send(dates);
    expect(res.status).toBe(400);
    expect(res.body).toEqual(validationFailed(Object.keys(dates)[0]!));
  });

  it.each(['0000-01-01', '9999-12-31T23:59:59-14:00', '1899-12-31T23:59:59Z'])(
    'PUT /events/:slug/registration-deadline with %s answers 400 and stores nothing',
    async (deadline) => {
      const { auth } = await createAdmin();
      const event = await createEvent();
      const res = await api()
        .put(`/api/events/${event.slug}/registration-deadline`)
        .set('Authorization', auth)
        .send({ registrationDeadline: deadline });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(validationFailed('registrationDeadline'));
      expect((await prisma.event.findUniqueOrThrow({ where: { id: event.id } })).registrationDeadline).toBeNull();
    },
  );

  it('PUT /events/:slug/registration-deadline keeps accepting 9999-12-31T23:59:59Z', async () => {
    const { auth } = await createAdmin();
    const event = await createEvent();
    const res = await api()
      .put(`/api/events/${event.slug}/registration-deadline`)
      .set('Authorization', auth)
      .send({ registrationDeadline: '9999-12-31T23:59:59Z' });
    expect(res.status).toBe(200);
    expect((await api().get(`/api/events/${event.slug}`).set('Authorization', auth)).status).toBe(200);
  });
});

import { Client } from 'pg';
import supertest from 'supertest';
import { buildApp } from '../../src/app';
import { RenderedJson } from '../../src/lib/sql';
import { prisma } from '../helpers/db';
import { createTestContainer, testConfig } from '../helpers/container';
import { checkinTokenFor } from '../helpers/events';
import { createAdmin, createEvent, createUser, ensureEventRoom, joinEvent, unique } from '../helpers/factories';
import { insertMatch } from '../helpers/matches';
import { heat, person, runMatching } from '../helpers/matching';
import { startTestServer, type TestServer } from '../helpers/server';
import { connectSocket } from '../helpers/socket';

/**
 * The hot reads are served from the exact read cache (src/lib/read-cache.ts,
 * src/middleware/cached-read.ts), on two instances of one database: instance A answers the
 * reads, the changes are made on instance B's API or by another process (Prisma here, as the
 * CLI or psql would). Each test first reads twice on A and checks the second answer came from
 * the cache, then changes one thing and expects the very next read on A to show it.
 */
let a: TestServer;
let b: TestServer;

beforeAll(async () => {
  a = await startTestServer({}, {});
  b = await startTestServer({}, {});
  expect(await a.container.readCache!.start()).toBe(true);
  expect(await b.container.readCache!.start()).toBe(true);
});

afterAll(async () => {
  await a?.close();
  await b?.close();
});

/** GET on A twice; the second answer must come from the cache. Returns its body. */
async function cachedGet(path: string, auth: string) {
  const first = await a.request.get(path).set('Authorization', auth).expect(200);
  const hits = a.container.readCache!.stats().hits;
  const res = await a.request.get(path).set('Authorization', auth).expect(200);
  // the session and the answer, sent as the database's answer was
  expect(a.container.readCache!.stats().hits).toBe(hits + 2);
  expect(res.text).toBe(first.text);
  expect(res.headers['content-type']).toBe(first.headers['content-type']);
  expect(res.headers.etag).toBe(first.headers.etag);
  return res.body;
}

/** A new event with `count` new participants (the callers). */
async function eventWithParticipants(count: number) {
  const event = await createEvent();
  const callers = [];
  for (let i = 0; i < count; i++) {
    const u = await createUser();
    await joinEvent(u.user, event);
    callers.push(u);
  }
  return { event, callers };
}

const readOnA = (path: string, auth: string) => a.request.get(path).set('Authorization', auth);
const listed = (body: { data: { slug: string }[] }, slug: string) => body.data.find((e) => e.slug === slug);

describe('GET /api/events after a write', () => {
  it('shows a check-in made on the other instance (isJoined and participantsCount)', async () => {
    const me = await createUser();
    const event = await createEvent();
    expect(listed(await cachedGet('/api/events', me.auth), event.slug)).toMatchObject({ isJoined: false });
    const token = await checkinTokenFor(event);
    await b.request.post(`/api/events/checkin/${token}`).set('Authorization', me.auth).expect(200);
    const res = await readOnA('/api/events', me.auth).expect(200);
    expect(listed(res.body, event.slug)).toMatchObject({ isJoined: true, participantsCount: 1 });
  });

  it('answers what the one statement without a cache answers: joined events first, each part by date', async () => {
    const me = await createUser();
    const events = [];
    for (let i = 0; i < 4; i++) events.push(await createEvent());
    await joinEvent(me.user, events[3]);
    await joinEvent(me.user, events[1]);
    const withoutCache = createTestContainer({}, { readCache: false });
    try {
      const expected = (
        await supertest(buildApp(withoutCache)).get('/api/events').set('Authorization', me.auth).expect(200)
      ).text;
      expect(JSON.stringify(await cachedGet('/api/events', me.auth))).toBe(expected);
    } finally {
      await withoutCache.close();
    }
  });

  it('shows a leave made on the other instance', async () => {
    const me = await createUser();
    const event = await createEvent();
    await joinEvent(me.user, event);
    expect(listed(await cachedGet('/api/events', me.auth), event.slug)).toMatchObject({ isJoined: true });
    await b.request.delete(`/api/events/${event.slug}/leave`).set('Authorization', me.auth).expect(200);
    const res = await readOnA('/api/events', me.auth).expect(200);
    expect(listed(res.body, event.slug)).toMatchObject({ isJoined: false, participantsCount: 0 });
  });

  it('lists an event created on the other instance', async () => {
    const admin = await createAdmin();
    await cachedGet('/api/events', admin.auth);
    const created = await b.request
      .post('/api/admin/events')
      .set('Authorization', admin.auth)
      .send({ name: unique('New '), location: 'Berlin', startDate: '2027-03-01', endDate: '2027-03-03' })
      .expect(201);
    const res = await readOnA('/api/events', admin.auth).expect(200);
    expect(listed(res.body, created.body.data.slug)).toBeDefined();
  });

  it('shows an edit made on the other instance', async () => {
    const admin = await createAdmin();
    const event = await createEvent();
    await cachedGet('/api/events', admin.auth);
    const name = unique('Renamed ');
    await b.request
      .patch(`/api/admin/events/${event.slug}`)
      .set('Authorization', admin.auth)
      .send({ name })
      .expect(200);
    const res = await readOnA('/api/events', admin.auth).expect(200);
    expect(listed(res.body, event.slug)).toMatchObject({ name });
  });
});

describe('validators', () => {
  it('a cached answer carries the ETag of its body, and a change gives a new one', async () => {
    const me = await createUser();
    const event = await createEvent();
    await cachedGet('/api/events', me.auth);
    const { etag } = (await readOnA('/api/events', me.auth).expect(200)).headers;
    await joinEvent(me.user, event);
    const res = await readOnA('/api/events', me.auth).expect(200);
    expect(listed(res.body, event.slug)).toMatchObject({ isJoined: true });
    expect(res.headers.etag).not.toBe(etag);
  });
});

describe('GET /api/events/:slug/messages after a write', () => {
  async function room() {
    const me = await createUser();
    const other = await createUser();
    const event = await createEvent();
    await joinEvent(me.user, event);
    await joinEvent(other.user, event);
    const chatRoom = await ensureEventRoom(event);
    const message = await prisma.message.create({
      data: { roomId: chatRoom.id, userId: other.user.id, content: 'first' },
    });
    return { me, other, event, chatRoom, message, path: `/api/events/${event.slug}/messages` };
  }

  it('shows a message written by another process', async () => {
    const { me, other, chatRoom, path } = await room();
    expect((await cachedGet(path, me.auth)).data).toHaveLength(1);
    await prisma.message.create({ data: { roomId: chatRoom.id, userId: other.user.id, content: 'second' } });
    const res = await readOnA(path, me.auth).expect(200);
    expect(res.body.data.map((m: { content: string }) => m.content)).toEqual(['first', 'second']);
  });

  it('leaves out a message removed by another process', async () => {
    const { me, message, path } = await room();
    expect((await cachedGet(path, me.auth)).data).toHaveLength(1);
    await prisma.message.update({ where: { id: message.id }, data: { deletedAt: new Date() } });
    expect((await readOnA(path, me.auth).expect(200)).body.data).toEqual([]);
  });

  it('leaves out the messages of a user blocked on the other instance', async () => {
    const { me, other, path } = await room();
    expect((await cachedGet(path, me.auth)).data).toHaveLength(1);
    await b.request.post(`/api/users/${other.user.username}/block`).set('Authorization', me.auth).expect(201);
    expect((await readOnA(path, me.auth).expect(200)).body.data).toEqual([]);
  });

  it('answers 403 to a participant who left on the other instance', async () => {
    const { me, event, path } = await room();
    await cachedGet(path, me.auth);
    await b.request.delete(`/api/events/${event.slug}/leave`).set('Authorization', me.auth).expect(200);
    expect((await readOnA(path, me.auth)).body).toMatchObject({ code: 'NOT_PARTICIPANT' });
  });
});

describe('GET /api/users/me, /api/dashboard, /api/matches and match suggestions after a write', () => {
  it('GET /api/users/me shows a profile edit made on the other instance', async () => {
    const me = await createUser();
    await cachedGet('/api/users/me', me.auth);
    await b.request.patch('/api/users/me').set('Authorization', me.auth).send({ firstName: 'Edited' }).expect(200);
    expect((await readOnA('/api/users/me', me.auth).expect(200)).body.data).toMatchObject({ firstName: 'Edited' });
  });

  it('GET /api/dashboard and GET /api/matches show a match request written by another process', async () => {
    const me = await createUser();
    const requester = await createUser();
    const event = await createEvent();
    await joinEvent(me.user, event);
    await joinEvent(requester.user, event);
    expect((await cachedGet('/api/dashboard', me.auth)).data.incomingRequests).toEqual([]);
    expect((await cachedGet('/api/matches', me.auth)).data).toEqual([]);
    const match = await insertMatch(event, requester.user, me.user);
    const dashboard = await readOnA('/api/dashboard', me.auth).expect(200);
    expect(dashboard.body.data.incomingRequests).toMatchObject([{ slug: match.slug }]);
    const matches = await readOnA('/api/matches', me.auth).expect(200);
    expect(matches.body.data).toMatchObject([{ slug: match.slug, status: 'pending' }]);
  });

  it('GET /api/dashboard shows a heat added by another process', async () => {
    const event = await createEvent();
    const me = await person(event);
    expect((await cachedGet('/api/dashboard', me.auth)).data.events).toMatchObject([{ heatsCount: 0 }]);
    await heat(me, event, { n: 1, role: 'Leader' });
    const res = await readOnA('/api/dashboard', me.auth).expect(200);
    expect(res.body.data.events).toMatchObject([{ heatsCount: 1 }]);
  });

  it('GET /api/events/:slug/match-suggestions shows a matching run of another instance', async () => {
    const event = await createEvent();
    const admin = await createAdmin();
    const dancer = await person(event);
    await person(event);
    await heat(dancer, event, { n: 1, role: 'Leader' });
    const path = `/api/events/${event.slug}/match-suggestions`;
    expect((await cachedGet(path, dancer.auth)).data.toBeRecorded).toEqual([]);
    await runMatching(event, admin);
    const res = await readOnA(path, dancer.auth).expect(200);
    expect(res.body.data.toBeRecorded).toHaveLength(1);
  });
});

describe('authorization after a change of the caller', () => {
  it('refuses a session revoked by another process (token version) on the next read', async () => {
    const me = await createUser();
    await cachedGet('/api/events', me.auth);
    await prisma.user.update({ where: { id: me.user.id }, data: { tokenVersion: { increment: 1 } } });
    expect((await readOnA('/api/events', me.auth)).status).toBe(401);
  });

  it('refuses a user suspended on the other instance on the next read', async () => {
    const me = await createUser();
    const admin = await createAdmin();
    await cachedGet('/api/dashboard', me.auth);
    await b.request
      .post(`/api/admin/users/${me.user.username}/suspend`)
      .set('Authorization', admin.auth)
      .send({ reason: 'test' })
      .expect(200);
    expect((await readOnA('/api/dashboard', me.auth)).body).toMatchObject({ code: 'INVALID_TOKEN' });
  });

  it('refuses a deleted user on the next read', async () => {
    const me = await createUser();
    await cachedGet('/api/users/me', me.auth);
    await prisma.user.delete({ where: { id: me.user.id } });
    expect((await readOnA('/api/users/me', me.auth)).status).toBe(401);
  });

  it('no longer shows the check-in to an admin demoted by another process', async () => {
    const admin = await createAdmin();
    const event = await createEvent();
    const path = `/api/events/${event.slug}/details`;
    // the first read that may see the check-in creates its token (a write)
    await readOnA(path, admin.auth).expect(200);
    expect((await cachedGet(path, admin.auth)).data.checkin).not.toBeNull();
    await prisma.user.update({ where: { id: admin.user.id }, data: { isAdmin: false } });
    expect((await readOnA(path, admin.auth).expect(200)).body.data.checkin).toBeNull();
  });
});

describe('the participants of the details, read once for every caller', () => {
  const participantsOf = (body: { data: { participants: { username: string }[] } }) =>
    body.data.participants.map((p) => p.username).sort();

  it("a participant's first read shows a participant who joined on the other instance after another caller's read", async () => {
    const event = await createEvent();
    const [first, second, joiner] = [await createUser(), await createUser(), await createUser()];
    await joinEvent(first.user, event);
    await joinEvent(second.user, event);
    const path = `/api/events/${event.slug}/details`;
    await cachedGet(path, first.auth);
    const token = await checkinTokenFor(event);
    await b.request.post(`/api/events/checkin/${token}`).set('Authorization', joiner.auth).expect(200);
    const res = await readOnA(path, second.auth).expect(200);
    expect(participantsOf(res.body)).toEqual([first.user.username, second.user.username, joiner.user.username].sort());
    expect(res.body.data.stats.totalParticipants).toBe(3);
  });

  it("shows a participant's new username, changed by another process, to a caller who never read the details", async () => {
    const event = await createEvent();
    const [first, second, renamed] = [await createUser(), await createUser(), await createUser()];
    for (const u of [first, second, renamed]) await joinEvent(u.user, event);
    const path = `/api/events/${event.slug}/details`;
    await cachedGet(path, first.auth);
    const username = unique('renamed');
    await prisma.user.update({ where: { id: renamed.user.id }, data: { username } });
    const res = await readOnA(path, second.auth).expect(200);
    expect(participantsOf(res.body)).toEqual([first.user.username, second.user.username, username].sort());
  });

  it('reads the participant list from the database once for callers that have not read the details yet', async () => {
    const { event, callers } = await eventWithParticipants(5);
    const path = `/api/events/${event.slug}/details`;
    const rows = jest.spyOn(a.container.database.sql, 'rows');
    const bodies = [];
    try {
      for (const u of callers) bodies.push((await readOnA(path, u.auth).expect(200)).body.data.participants);
      const reads = rows.mock.calls.filter(([statement]) => statement.name === 'events_details_participants');
      expect(reads).toHaveLength(1);
    } finally {
      rows.mockRestore();
    }
    for (const body of bodies) expect(body).toEqual(bodies[0]);
  });
});

describe('the details of a big event, encoded once', () => {
  it('encodes the participant list once for every caller while it is kept', async () => {
    const { event, callers } = await eventWithParticipants(3);
    const admin = await createAdmin();
    const path = `/api/events/${event.slug}/details`;
    const encoded = jest.spyOn(RenderedJson.prototype, 'encoded');
    try {
      // participants and an admin (their answers hold the check-in block) and the same list
      for (const u of [...callers, admin]) await readOnA(path, u.auth).expect(200);
      expect(encoded.mock.contexts).toHaveLength(4);
      expect(new Set(encoded.mock.contexts).size).toBe(1);
    } finally {
      encoded.mockRestore();
    }
  });

  it('gives two participants the same details with the same ETag, and a new participant a new one', async () => {
    const {
      event,
      callers: [me, other],
    } = await eventWithParticipants(2);
    const joiner = await createUser();
    const path = `/api/events/${event.slug}/details`;
    const mine = await readOnA(path, me.auth).expect(200);
    const theirs = await readOnA(path, other.auth).expect(200);
    expect(theirs.text).toBe(mine.text);
    expect(theirs.headers.etag).toBe(mine.headers.etag);
    await joinEvent(joiner.user, event);
    const res = await readOnA(path, me.auth).expect(200);
    expect(res.headers.etag).not.toBe(mine.headers.etag);
    expect(res.body.data.stats.totalParticipants).toBe(3);
  });
});

describe('conditional polls', () => {
  it("answers a poll naming the details' ETag with 304 and no body while nothing changed, and with the new answer after a join", async () => {
    const {
      event,
      callers: [me],
    } = await eventWithParticipants(1);
    const path = `/api/events/${event.slug}/details`;
    const { etag } = (await readOnA(path, me.auth).expect(200)).headers;
    const unchanged = await readOnA(path, me.auth).set('If-None-Match', etag).expect(304);
    expect(unchanged.text).toBe('');
    expect(unchanged.headers.etag).toBe(etag);
    await joinEvent((await createUser()).user, event);
    const changed = await readOnA(path, me.auth).set('If-None-Match', etag).expect(200);
    expect(changed.body.data.stats.totalParticipants).toBe(2);
  });

  it('answers a poll of the event list naming its ETag with 304', async () => {
    const me = await createUser();
    await createEvent();
    const { etag } = (await readOnA('/api/events', me.auth).expect(200)).headers;
    await readOnA('/api/events', me.auth).set('If-None-Match', etag).expect(304);
  });
});

describe("the caller's user, kept when a socket connects", () => {
  it('answers the first read of a user whose socket connected without reading the user again', async () => {
    const me = await createUser();
    const socket = await connectSocket(a.url, me.token);
    try {
      const before = a.container.readCache!.stats();
      await readOnA('/api/users/me', me.auth).expect(200);
      // the session from the cache; the answer is a miss (first read)
      expect(a.container.readCache!.stats().hits - before.hits).toBe(1);
    } finally {
      socket.disconnect();
    }
  });

  it('refuses the first read after a session revoked by another process once the socket had connected', async () => {
    const me = await createUser();
    const socket = await connectSocket(a.url, me.token);
    try {
      await prisma.user.update({ where: { id: me.user.id }, data: { tokenVersion: { increment: 1 } } });
      const res = await readOnA('/api/users/me', me.auth);
      expect(res.status).toBe(401);
      expect(res.body.error).toBe('Invalid or expired token');
    } finally {
      socket.disconnect();
    }
  });
});

describe('the LISTEN connection', () => {
  it('drops every entry when the connection is lost, and reads stay exact until and after it is back', async () => {
    const me = await createUser();
    const event = await createEvent();
    await cachedGet('/api/events', me.auth);
    const admin = new Client({ connectionString: testConfig().databaseUrl });
    await admin.connect();
    try {
      await admin.query('SELECT pg_terminate_backend($1)', [a.container.readCache!.stats().listenerPid]);
    } finally {
      await admin.end();
    }
    await joinEvent(me.user, event);
    const during = await readOnA('/api/events', me.auth).expect(200);
    expect(listed(during.body, event.slug)).toMatchObject({ isJoined: true });
    expect(await a.container.readCache!.start()).toBe(true);
    expect(a.container.readCache!.stats().entries).toBe(0);
    await prisma.eventParticipant.deleteMany({ where: { userId: me.user.id, eventId: event.id } });
    const after = await readOnA('/api/events', me.auth).expect(200);
    expect(listed(after.body, event.slug)).toMatchObject({ isJoined: false });
  });
});

import { sql } from '../../src/lib/sql';
import { actorFor } from '../helpers/actor';
import { prisma } from '../helpers/db';
import { createEvent, createUser, ensureEventRoom, joinEvent, type TestUser } from '../helpers/factories';
import { startTestServer, type TestServer } from '../helpers/server';

/**
 * The per-caller statements of the hot reads (`sql(…, { perCaller })`, src/lib/caller-batches.ts):
 * reads arriving together are one statement over the callers' ids, and each caller still gets
 * exactly its own answer. The read cache is on (as in production), so the events list reads
 * the caller's participations with a per-caller statement too.
 */
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
  expect(await server.container.readCache!.start()).toBe(true);
});

afterAll(async () => {
  await server?.close();
});

const statements = () => server.container.database.poolStats().queries;

/** GET `path` for every caller at once; the answers in the callers' order. */
const getAll = (callers: TestUser[], path: (u: TestUser) => string) =>
  Promise.all(callers.map((u) => server.request.get(path(u)).set('Authorization', u.auth)));

describe('per-caller reads arriving together', () => {
  it('dashboards of thirty callers asked in one turn are read by one statement, each caller’s own', async () => {
    const callers = await Promise.all(Array.from({ length: 30 }, () => createUser()));
    const events = await Promise.all(callers.map(() => createEvent()));
    await Promise.all(callers.map((u, i) => joinEvent(u.user, events[i])));

    const before = statements();
    const dashboards = await Promise.all(callers.map((u) => server.container.dashboard.get(actorFor(u.user))));

    expect(statements() - before).toBe(1);
    expect(dashboards.map((d) => d.events.map((e) => e.slug))).toEqual(events.map((e) => [e.slug]));
  });

  it('thirty first reads of the dashboard at once: each caller gets its own', async () => {
    const callers = await Promise.all(Array.from({ length: 30 }, () => createUser()));
    const events = await Promise.all(callers.map(() => createEvent()));
    await Promise.all(callers.map((u, i) => joinEvent(u.user, events[i])));

    const answers = await getAll(callers, () => '/api/dashboard');

    expect(answers.map((r) => r.status)).toEqual(callers.map(() => 200));
    expect(answers.map((r) => r.body.data.events.map((e: { slug: string }) => e.slug))).toEqual(
      events.map((e) => [e.slug]),
    );
  });

  it('reads of two events’ histories at once: each caller gets its own room’s page, a non-participant 403 and an unknown event 404', async () => {
    const rooms = await Promise.all(
      [0, 1].map(async (i) => {
        const event = await createEvent();
        const room = await ensureEventRoom(event);
        const members = await Promise.all(Array.from({ length: 8 }, () => createUser()));
        await Promise.all(members.map((u) => joinEvent(u.user, event)));
        await prisma.message.create({ data: { roomId: room.id, userId: members[0].user.id, content: `room ${i}` } });
        return { event, members };
      }),
    );
    const outsider = await createUser();
    const callers = [...rooms[0].members, outsider, ...rooms[1].members];
    const slugs = [...rooms[0].members.map(() => rooms[0].event.slug), rooms[0].event.slug];
    slugs.push(...rooms[1].members.map(() => rooms[1].event.slug));

    const answers = await Promise.all([
      ...callers.map((u, i) => server.request.get(`/api/events/${slugs[i]}/messages`).set('Authorization', u.auth)),
      server.request.get('/api/events/no-such-event/messages').set('Authorization', outsider.auth),
    ]);

    const contents = (i: number) => answers[i].body.data.map((m: { content: string }) => m.content);
    for (let i = 0; i < 8; i++) expect([answers[i].status, contents(i)]).toEqual([200, ['room 0']]);
    expect(answers[8].status).toBe(403);
    expect(answers[8].body).toMatchObject({ success: false, code: 'NOT_PARTICIPANT' });
    for (let i = 9; i < 17; i++) expect([answers[i].status, contents(i)]).toEqual([200, ['room 1']]);
    expect(answers[17].status).toBe(404);
    expect(answers[17].body).toMatchObject({ success: false, code: 'EVENT_NOT_FOUND' });
  });

  it('first reads of the event list at once: each caller’s joined events come first, with their own join time', async () => {
    const events = await Promise.all([0, 1, 2].map(() => createEvent()));
    const callers = await Promise.all(Array.from({ length: 12 }, () => createUser()));
    // caller i joined the first i % 4 of the three events
    const joinedAt = (i: number, k: number) => new Date(Date.UTC(2026, 0, 1 + i, k));
    await Promise.all(
      callers.flatMap((u, i) =>
        events.slice(0, i % 4).map((e, k) => joinEvent(u.user, e, { joinedAt: joinedAt(i, k) })),
      ),
    );

    const answers = await getAll(callers, () => '/api/events');

    answers.forEach((res, i) => {
      expect(res.status).toBe(200);
      const mine = (res.body.data as { slug: string; isJoined: boolean; joinedAt: string | null }[]).filter((e) =>
        events.some((x) => x.slug === e.slug),
      );
      const joined = events.slice(0, i % 4).map((e, k) => ({ slug: e.slug, joinedAt: joinedAt(i, k).toISOString() }));
      expect(mine.filter((e) => e.isJoined).map(({ slug, joinedAt }) => ({ slug, joinedAt }))).toEqual(
        expect.arrayContaining(joined),
      );
      expect(mine.filter((e) => e.isJoined)).toHaveLength(joined.length);
      // joined events first
      const firstOther = res.body.data.findIndex((e: { isJoined: boolean }) => !e.isJoined);
      expect(res.body.data.slice(firstOther).every((e: { isJoined: boolean }) => !e.isJoined)).toBe(true);
    });
  });
});

describe('a per-caller statement', () => {
  it('names its caller by its own parameter, not one that starts with the same digits', () => {
    const statement = sql('test_caller_param', 'SELECT $10::int AS a, $1::int AS b', { perCaller: 1 });
    expect(statement.perCaller?.param).toBe(0);
    expect(statement.perCaller?.statement.text).toContain('$10::int AS a, batch_callers.id::int AS b');
    expect(statement.perCaller?.statement.text).toContain('wcs_callers($1::int[])');
  });

  it('that does not use its caller parameter is refused when declared', () => {
    expect(() => sql('test_no_caller', 'SELECT 1 WHERE $2::int > 0', { perCaller: 1 })).toThrow(
      'statement test_no_caller does not use its caller $1',
    );
  });
});

import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import supertest from 'supertest';
import { buildApp } from '../../src/app';
import type { Container } from '../../src/container';
import { createTestContainer } from '../helpers/container';
import { createEvent, createUser, joinEvent, type TestUser } from '../helpers/factories';

/**
 * Identical answers of many callers are held once (src/lib/read-cache.ts `shared`,
 * src/middleware/cached-read.ts): at 3 000 dancers, 150 callers of the 450 KB details each held
 * their own copy, the 64 MiB bound evicted every entry before its next use, and bench:event-day's
 * polling found 1 % of its reads in the cache (docs/event-day.md).
 */
describe('the read cache with many callers of one big answer', () => {
  const containers: Container[] = [];
  afterAll(async () => {
    await Promise.all(containers.map((c) => c.close()));
  });

  async function appWithCache(maxBytes: number) {
    const container = createTestContainer({ readCache: { maxBytes } });
    containers.push(container);
    expect(await container.readCache!.start()).toBe(true);
    return { container, request: supertest(buildApp(container)) };
  }

  it('ten participants reading the same details twice are answered from the cache the second time, within a bound of three answers', async () => {
    const event = await createEvent();
    const readers: TestUser[] = [];
    for (let i = 0; i < 60; i++) {
      const u = await createUser();
      await joinEvent(u.user, event);
      if (i < 10) readers.push(u);
    }
    const path = `/api/events/${event.slug}/details`;
    // the answer's size, and its check-in token created (a write the later entries must follow)
    const probe = await appWithCache(64 * 1024 * 1024);
    const size = Buffer.byteLength(
      (await probe.request.get(path).set('Authorization', readers[0].auth).expect(200)).text,
    );
    expect(size).toBeGreaterThan(5_000);

    const { container, request } = await appWithCache(3 * size);
    const firsts = [];
    for (const r of readers) firsts.push((await request.get(path).set('Authorization', r.auth).expect(200)).text);
    const before = container.readCache!.stats();
    for (const [i, r] of readers.entries()) {
      const res = await request.get(path).set('Authorization', r.auth).expect(200);
      expect(res.text).toBe(firsts[i]);
    }
    const after = container.readCache!.stats();
    // each second read: the session and the answer from the cache
    expect(after.hits - before.hits).toBe(2 * readers.length);
    expect(after.misses).toBe(before.misses);
    // the body once and the participant list under it once (EventsService reads it through the
    // cache for every caller), not ten bodies
    expect(after.weight).toBeLessThan(2.5 * size);
  });

  it("encodes each event of the list once for every caller's first read, a joined event again with the caller's fields", async () => {
    // a start date no other event has: its Date.toJSON calls count the encodings of this event
    const startDate = new Date(Date.UTC(2091, 0, 1) + Math.floor(Math.random() * 1e9));
    const event = await createEvent({ startDate, endDate: new Date(startDate.getTime() + 86_400_000) });
    const callers: TestUser[] = [];
    for (let i = 0; i < 5; i++) callers.push(await createUser());
    const joiner = await createUser();
    await joinEvent(joiner.user, event);
    const { request } = await appWithCache(64 * 1024 * 1024);
    const startJson = startDate.toJSON();
    const toJSON = jest.spyOn(Date.prototype, 'toJSON');
    const encodings = () => toJSON.mock.contexts.filter((d) => (d as Date).getTime() === startDate.getTime()).length;
    try {
      for (const c of callers) {
        const res = await request.get('/api/events').set('Authorization', c.auth).expect(200);
        expect(res.body.count).toBe(res.body.data.length);
        expect(res.body.data.find((e: { slug: string }) => e.slug === event.slug)).toMatchObject({
          isJoined: false,
          joinedAt: null,
          participantsCount: 1,
          startDate: startJson,
        });
      }
      expect(encodings()).toBe(1);
      const mine = await request.get('/api/events').set('Authorization', joiner.auth).expect(200);
      expect(mine.body.data[0]).toMatchObject({ slug: event.slug, isJoined: true, startDate: startJson });
      expect(encodings()).toBe(2);
    } finally {
      toJSON.mockRestore();
    }
  });

  it('weighs a shared answer until its last holder is dropped', async () => {
    const event = await createEvent();
    const members: TestUser[] = [];
    for (let i = 0; i < 30; i++) {
      const u = await createUser();
      await joinEvent(u.user, event);
      members.push(u);
    }
    const [a, b] = members;
    const { container, request } = await appWithCache(64 * 1024 * 1024);
    const path = `/api/events/${event.slug}/details`;
    await request.get(path).set('Authorization', a.auth).expect(200); // creates the check-in token
    await request.get(path).set('Authorization', a.auth).expect(200);
    const one = container.readCache!.stats().weight;
    expect(one).toBeGreaterThan(3_000);
    await request.get(path).set('Authorization', b.auth).expect(200);
    const two = container.readCache!.stats().weight;
    // a second holder adds its bookkeeping, not the body again
    expect(two - one).toBeLessThan(1_000);
    // a write to a table the answer was read from: both entries are dropped at their next read,
    // and the old body with the last of them; the new body is held once again
    await joinEvent((await createUser()).user, event);
    await request.get(path).set('Authorization', a.auth).expect(200);
    await request.get(path).set('Authorization', b.auth).expect(200);
    const after = container.readCache!.stats().weight;
    expect(Math.abs(after - two)).toBeLessThan(1_000);
  });
});

/**
 * A part of answers that is the same for every caller (the participants of a big event's details,
 * 35-55 ms of PostgreSQL at 3 000 participants) is read once for the callers arriving while it is
 * read (ReadCache.readThrough). A change notice of a table it was not read from (a chat message,
 * the check-in token made by a first details read) used to make every later caller read it again.
 */
describe('a shared part of answers while it is being read', () => {
  let container: Container;
  let notifier: Client;
  beforeAll(async () => {
    container = createTestContainer({ readCache: { maxBytes: 64 * 1024 * 1024 } });
    expect(await container.readCache!.start()).toBe(true);
    notifier = new Client({ connectionString: process.env.DATABASE_URL });
    await notifier.connect();
  });
  afterAll(async () => {
    await notifier.end();
    await container.close();
  });

  /** Two callers of one part, the second arriving after `notice` was committed and seen. */
  async function twoCallersAround(notice: string, dependsOn: string[]) {
    const cache = container.readCache!;
    const key = `shared part ${randomUUID()}`;
    let reads = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const read = async () => {
      const n = ++reads;
      await gate;
      return `read ${n}`;
    };
    expect(await cache.fence()).toBe(true);
    const first = cache.readThrough(key, dependsOn, () => 1, read);
    await notifier.query(`SELECT pg_notify('wcs_changes', $1)`, [notice]);
    // a fence after the notice's commit: the cache has seen it
    expect(await cache.fence()).toBe(true);
    const second = cache.readThrough(key, dependsOn, () => 1, read);
    release();
    return { answers: await Promise.all([first, second]), reads };
  }

  it('is shared with a caller arriving after a change of a table it was not read from', async () => {
    // a table name of this run only: other test files' writes notify too
    const table = `Part${randomUUID().slice(0, 8)}`;
    const { answers, reads } = await twoCallersAround('Message', [table, `${table}:*`]);
    expect(reads).toBe(1);
    expect(answers).toEqual(['read 1', 'read 1']);
  });

  it('is read again for a caller arriving after a change of a table it was read from', async () => {
    const table = `Part${randomUUID().slice(0, 8)}`;
    const { answers, reads } = await twoCallersAround(`${table}:7`, [table]);
    expect(reads).toBe(2);
    expect(answers).toEqual(['read 1', 'read 2']);
  });
});

import type { Event } from '../../src/generated/prisma/client';
import { prisma } from '../helpers/db';
import { createEvent, createUser, joinEvent } from '../helpers/factories';
import { refs, storedHeats, type Ref } from '../helpers/heats';
import { api } from '../helpers/server';

const MSG = {
  notArray: 'Heats must be a non-empty array',
  missing: 'Each heat must have divisionId, competitionTypeId, and heatNumber',
  number: 'Heat number must be between 1 and 9',
  role: 'Role must be either Leader or Follower',
  duplicate: 'Cannot have duplicate heats with same role in same division and competition type',
  participant: 'You must be a participant of this event',
};

let R: Ref;
beforeAll(async () => {
  R = await refs();
});

async function participantAt(event?: Event) {
  const ev = event ?? (await createEvent());
  const u = await createUser();
  await joinEvent(u.user, ev);
  return { ...u, event: ev };
}

const post = (slug: string, auth: string, body: unknown) =>
  api()
    .post(`/api/events/${slug}/heats`)
    .set('Authorization', auth)
    .send(body as object);

describe('GET /divisions and /competition-types', () => {
  it('lists the six divisions without a token, ordered by id, as { id, name, abbreviation }', async () => {
    const res = await api().get('/api/divisions');
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    const ids = res.body.data.map((d: { id: number }) => d.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(res.body.data.map((d: { abbreviation: string }) => d.abbreviation)).toEqual([
      'NEW',
      'NOV',
      'INT',
      'ADV',
      'ALL',
      'CHA',
    ]);
    for (const d of res.body.data) expect(Object.keys(d).sort()).toEqual(['abbreviation', 'id', 'name']);
    expect(res.body.data[0]).toEqual({ id: R.NEW, name: 'Newcomer', abbreviation: 'NEW' });
  });

  it('lists the two competition types without a token, ordered by id', async () => {
    const res = await api().get('/api/competition-types');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([
      { id: R.JJ, name: 'Jack & Jill', abbreviation: 'J&J' },
      { id: R.STR, name: 'Strictly', abbreviation: 'STR' },
    ]);
  });
});

describe('POST /events/:slug/heats — body validation', () => {
  let p: Awaited<ReturnType<typeof participantAt>>;
  beforeAll(async () => {
    p = await participantAt();
  });

  const expect400 = async (body: unknown, message: string) => {
    const res = await post(p.event.slug, p.auth, body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, error: message, code: 'VALIDATION_ERROR' });
    expect(Array.isArray(res.body.details)).toBe(true);
    return res;
  };

  it('requires a token', async () => {
    const res = await api().post(`/api/events/${p.event.slug}/heats`).send({ heats: [] });
    expect(res.status).toBe(401);
  });

  it('answers "Heats must be a non-empty array" when heats is missing, not an array or empty', async () => {
    await expect400({}, MSG.notArray);
    await expect400({ heats: 'x' }, MSG.notArray);
    await expect400({ heats: { divisionId: 1 } }, MSG.notArray);
    await expect400({ heats: [] }, MSG.notArray);
    await expect400({ heats: null }, MSG.notArray);
  });

  it('answers "Each heat must have ..." when a heat lacks divisionId, competitionTypeId or heatNumber', async () => {
    const full = { divisionId: R.NOV, competitionTypeId: R.JJ, heatNumber: 1 };
    for (const key of ['divisionId', 'competitionTypeId', 'heatNumber'] as const) {
      const heat: Record<string, unknown> = { ...full };
      delete heat[key];
      const res = await expect400({ heats: [full, heat] }, MSG.missing);
      expect(res.body.details[0].field).toBe(`heats[1].${key}`);
      await expect400({ heats: [{ ...full, [key]: null }] }, MSG.missing);
    }
    await expect400({ heats: [null] }, MSG.missing);
    await expect400({ heats: [5] }, MSG.missing);
  });

  it('answers "Heat number must be between 1 and 9" outside 1-9 and for non-integers', async () => {
    for (const heatNumber of [0, 10, -1, 2.5, 'x', 100]) {
      await expect400({ heats: [{ divisionId: R.NOV, competitionTypeId: R.JJ, heatNumber }] }, MSG.number);
    }
  });

  it('answers "Role must be either Leader or Follower" for any other role', async () => {
    for (const role of ['leader', 'Dancer', 1, true]) {
      await expect400({ heats: [{ divisionId: R.NOV, competitionTypeId: R.JJ, heatNumber: 1, role }] }, MSG.role);
    }
  });

  it('refuses non-integer ids and unknown divisions or competition types with a clear 400', async () => {
    await expect400(
      { heats: [{ divisionId: 'abc', competitionTypeId: R.JJ, heatNumber: 1 }] },
      'divisionId and competitionTypeId must be positive integers',
    );
    await expect400(
      { heats: [{ divisionId: R.NOV, competitionTypeId: 1.5, heatNumber: 1 }] },
      'divisionId and competitionTypeId must be positive integers',
    );
    await expect400(
      { heats: [{ divisionId: 99999, competitionTypeId: R.JJ, heatNumber: 1 }] },
      'Unknown division: 99999',
    );
    await expect400(
      { heats: [{ divisionId: R.NOV, competitionTypeId: 99999, heatNumber: 1 }] },
      'Unknown competition type: 99999',
    );
    await expect400(
      { heats: [{ divisionId: 1e12, competitionTypeId: R.JJ, heatNumber: 1 }] },
      'divisionId and competitionTypeId must be positive integers',
    );
  });

  it('refuses more than 100 heats in one submission', async () => {
    const heats = Array.from({ length: 101 }, () => ({ divisionId: R.NOV, competitionTypeId: R.JJ, heatNumber: 1 }));
    await expect400({ heats }, 'At most 100 heats can be submitted at once');
  });

  it('stores nothing on a refused body', async () => {
    await post(p.event.slug, p.auth, { heats: [{ divisionId: R.NOV, competitionTypeId: R.JJ, heatNumber: 12 }] });
    expect(await storedHeats(p.user.id, p.event.id)).toEqual([]);
  });
});

describe('POST /events/:slug/heats — check order', () => {
  it('body validation comes before the event lookup', async () => {
    const u = await createUser();
    const res = await post('no-such-event', u.auth, { heats: [] });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(MSG.notArray);
  });

  it('a valid body on an unknown event answers 404 "Event not found"', async () => {
    const u = await createUser();
    const res = await post('no-such-event', u.auth, {
      heats: [{ divisionId: R.NOV, competitionTypeId: R.JJ, heatNumber: 1 }],
    });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ success: false, error: 'Event not found', code: 'EVENT_NOT_FOUND' });
  });

  it('a valid body from a non-participant answers 403 and stores nothing', async () => {
    const event = await createEvent();
    const u = await createUser();
    const res = await post(event.slug, u.auth, {
      heats: [{ divisionId: R.NOV, competitionTypeId: R.JJ, heatNumber: 1 }],
    });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ success: false, error: MSG.participant });
    expect(await prisma.heat.count({ where: { eventId: event.id } })).toBe(0);
  });

  it('an invalid body from a non-participant answers 400, not 403', async () => {
    const event = await createEvent();
    const u = await createUser();
    const res = await post(event.slug, u.auth, {
      heats: [{ divisionId: R.NOV, competitionTypeId: R.JJ, heatNumber: 0 }],
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(MSG.number);
  });
});

describe('POST /events/:slug/heats — replacement', () => {
  it("answers 200 with count and the caller's heats in the SPEC shape, role null when omitted", async () => {
    const p = await participantAt();
    const res = await post(p.event.slug, p.auth, {
      heats: [
        { divisionId: R.INT, competitionTypeId: R.STR, heatNumber: 2, role: 'Follower' },
        { divisionId: R.NOV, competitionTypeId: R.JJ, heatNumber: 3 },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    expect(res.body.count).toBe(2);
    const [first, second] = res.body.data;
    expect(first).toEqual({
      id: expect.any(Number),
      divisionId: R.NOV,
      division: { id: R.NOV, name: 'Novice', abbreviation: 'NOV' },
      competitionTypeId: R.JJ,
      competitionType: { id: R.JJ, name: 'Jack & Jill', abbreviation: 'J&J' },
      heatNumber: 3,
      role: null,
    });
    expect(second).toMatchObject({ divisionId: R.INT, competitionTypeId: R.STR, heatNumber: 2, role: 'Follower' });
    expect(await storedHeats(p.user.id, p.event.id)).toEqual([
      { divisionId: R.NOV, competitionTypeId: R.JJ, heatNumber: 3, role: null },
      { divisionId: R.INT, competitionTypeId: R.STR, heatNumber: 2, role: 'Follower' },
    ]);
    const log = await prisma.activityLog.findFirst({ where: { userId: p.user.id, action: 'heats_save' } });
    expect(log).toMatchObject({ category: 'event', success: true, resource: `event:${p.event.slug}` });
  });

  it('accepts numeric strings for ids and heat numbers', async () => {
    const p = await participantAt();
    const res = await post(p.event.slug, p.auth, {
      heats: [{ divisionId: String(R.ADV), competitionTypeId: String(R.JJ), heatNumber: '4' }],
    });
    expect(res.status).toBe(200);
    expect(await storedHeats(p.user.id, p.event.id)).toEqual([
      { divisionId: R.ADV, competitionTypeId: R.JJ, heatNumber: 4, role: null },
    ]);
  });

  it('replaces the whole previous set and leaves other users and other events alone', async () => {
    const p = await participantAt();
    const other = await participantAt(p.event);
    const otherEvent = await createEvent();
    await joinEvent(p.user, otherEvent);
    await post(other.event.slug, other.auth, {
      heats: [{ divisionId: R.NOV, competitionTypeId: R.JJ, heatNumber: 1 }],
    });
    await post(otherEvent.slug, p.auth, { heats: [{ divisionId: R.CHA, competitionTypeId: R.STR, heatNumber: 9 }] });
    await post(p.event.slug, p.auth, {
      heats: [
        { divisionId: R.NOV, competitionTypeId: R.JJ, heatNumber: 1 },
        { divisionId: R.INT, competitionTypeId: R.JJ, heatNumber: 2 },
      ],
    });
    const res = await post(p.event.slug, p.auth, {
      heats: [{ divisionId: R.ADV, competitionTypeId: R.STR, heatNumber: 5, role: 'Leader' }],
    });
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(1);
    expect(await storedHeats(p.user.id, p.event.id)).toEqual([
      { divisionId: R.ADV, competitionTypeId: R.STR, heatNumber: 5, role: 'Leader' },
    ]);
    expect(await storedHeats(other.user.id, p.event.id)).toHaveLength(1);
    expect(await storedHeats(p.user.id, otherEvent.id)).toEqual([
      { divisionId: R.CHA, competitionTypeId: R.STR, heatNumber: 9, role: null },
    ]);
  });

  it('allows Leader and Follower, and a role-less heat beside a role, in one division and type', async () => {
    const p = await participantAt();
    const res = await post(p.event.slug, p.auth, {
      heats: [
        { divisionId: R.NOV, competitionTypeId: R.JJ, heatNumber: 1, role: 'Leader' },
        { divisionId: R.NOV, competitionTypeId: R.JJ, heatNumber: 2, role: 'Follower' },
        { divisionId: R.NOV, competitionTypeId: R.JJ, heatNumber: 3 },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(3);
  });

  it('refuses the same role twice in one division and type with the duplicate message and keeps the old set', async () => {
    const p = await participantAt();
    const old = [{ divisionId: R.INT, competitionTypeId: R.STR, heatNumber: 7, role: 'Leader' }];
    await post(p.event.slug, p.auth, { heats: old });
    const res = await post(p.event.slug, p.auth, {
      heats: [
        { divisionId: R.NOV, competitionTypeId: R.JJ, heatNumber: 1, role: 'Leader' },
        { divisionId: R.NOV, competitionTypeId: R.JJ, heatNumber: 2, role: 'Leader' },
      ],
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ success: false, error: MSG.duplicate });
    // the deletion of the old set ran in the same transaction and was rolled back
    expect(await storedHeats(p.user.id, p.event.id)).toEqual(old);
  });

  it('treats two role-less heats in one division and type as duplicates', async () => {
    const p = await participantAt();
    const res = await post(p.event.slug, p.auth, {
      heats: [
        { divisionId: R.NOV, competitionTypeId: R.JJ, heatNumber: 1 },
        { divisionId: R.NOV, competitionTypeId: R.JJ, heatNumber: 2, role: null },
      ],
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(MSG.duplicate);
    expect(await storedHeats(p.user.id, p.event.id)).toEqual([]);
  });

  it('the database itself refuses two role-less heats (NULLS NOT DISTINCT unique index)', async () => {
    const p = await participantAt();
    const heat = { userId: p.user.id, eventId: p.event.id, divisionId: R.NOV, competitionTypeId: R.JJ, heatNumber: 1 };
    await prisma.heat.create({ data: heat });
    await expect(prisma.heat.create({ data: { ...heat, heatNumber: 2 } })).rejects.toMatchObject({ code: 'P2002' });
  });

  it('a submission failing after the old set was deleted leaves the old set untouched', async () => {
    const p = await participantAt();
    const old = [
      { divisionId: R.NOV, competitionTypeId: R.JJ, heatNumber: 1, role: null },
      { divisionId: R.INT, competitionTypeId: R.JJ, heatNumber: 2, role: null },
    ];
    await post(p.event.slug, p.auth, { heats: old });
    // An insert-time failure that passes validation: a trigger refusing heat number 8 for this user.
    await prisma.$executeRawUnsafe(`
      CREATE OR REPLACE FUNCTION heats_test_refuse() RETURNS trigger AS $$
      BEGIN
        IF NEW."userId" = ${p.user.id} AND NEW."heatNumber" = 8 THEN RAISE EXCEPTION 'refused by test'; END IF;
        RETURN NEW;
      END $$ LANGUAGE plpgsql`);
    await prisma.$executeRawUnsafe(
      `CREATE TRIGGER heats_test_refuse BEFORE INSERT ON "Heat" FOR EACH ROW EXECUTE FUNCTION heats_test_refuse()`,
    );
    try {
      const res = await post(p.event.slug, p.auth, {
        heats: [{ divisionId: R.ADV, competitionTypeId: R.STR, heatNumber: 8 }],
      });
      expect(res.status).toBe(500);
      expect(res.body.error).toBe('Internal server error');
    } finally {
      await prisma.$executeRawUnsafe('DROP TRIGGER heats_test_refuse ON "Heat"');
      await prisma.$executeRawUnsafe('DROP FUNCTION heats_test_refuse()');
    }
    expect(await storedHeats(p.user.id, p.event.id)).toEqual(old);
  });

  it('ten concurrent different submissions leave exactly one of them, never a mix', async () => {
    const p = await participantAt();
    const divisions = [R.NEW, R.NOV, R.INT, R.ADV, R.ALL, R.CHA];
    // submission i: (i % 3) + 1 heats, all with heat number i % 9 + 1, distinct per submission
    const submissions = Array.from({ length: 10 }, (_, i) =>
      Array.from({ length: (i % 3) + 1 }, (_, k) => ({
        divisionId: divisions[k],
        competitionTypeId: i < 5 ? R.JJ : R.STR,
        heatNumber: (i % 9) + 1,
        role: i % 2 === 0 ? ('Leader' as const) : null,
      })),
    );
    const responses = await Promise.all(submissions.map((heats) => post(p.event.slug, p.auth, { heats })));
    for (const res of responses) expect(res.status).toBe(200);
    const final = await storedHeats(p.user.id, p.event.id);
    const sortKey = (h: { divisionId: number; competitionTypeId: number; heatNumber: number }) =>
      `${h.competitionTypeId}:${h.divisionId}:${h.heatNumber}`;
    const normalize = (
      hs: { divisionId: number; competitionTypeId: number; heatNumber: number; role: string | null }[],
    ) =>
      JSON.stringify(
        [...hs].sort((a, b) => sortKey(a).localeCompare(sortKey(b))).map((h) => ({ ...h, role: h.role ?? null })),
      );
    const matches = submissions.filter((s) => normalize(s) === normalize(final));
    expect(matches).toHaveLength(1);
  });
});

describe('GET /events/:slug/heats/me', () => {
  it("lists the caller's heats ordered by competitionTypeId, divisionId, heatNumber with competitorNumber", async () => {
    const event = await createEvent();
    const u = await createUser();
    await joinEvent(u.user, event, { competitorNumber: '123' });
    await post(event.slug, u.auth, {
      heats: [
        { divisionId: R.INT, competitionTypeId: R.STR, heatNumber: 1 },
        { divisionId: R.NOV, competitionTypeId: R.STR, heatNumber: 9 },
        { divisionId: R.INT, competitionTypeId: R.JJ, heatNumber: 2, role: 'Leader' },
        { divisionId: R.INT, competitionTypeId: R.JJ, heatNumber: 1, role: 'Follower' },
        { divisionId: R.ADV, competitionTypeId: R.JJ, heatNumber: 5 },
      ],
    });
    const res = await api().get(`/api/events/${event.slug}/heats/me`).set('Authorization', u.auth);
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(5);
    expect(
      res.body.data.map((h: { competitionTypeId: number; divisionId: number; heatNumber: number }) => [
        h.competitionTypeId,
        h.divisionId,
        h.heatNumber,
      ]),
    ).toEqual([
      [R.JJ, R.INT, 1],
      [R.JJ, R.INT, 2],
      [R.JJ, R.ADV, 5],
      [R.STR, R.NOV, 9],
      [R.STR, R.INT, 1],
    ]);
    for (const h of res.body.data) {
      expect(h.competitorNumber).toBe('123');
      expect(h.division).toEqual(expect.objectContaining({ id: h.divisionId }));
      expect(h.competitionType).toEqual(expect.objectContaining({ id: h.competitionTypeId }));
    }
  });

  it('answers an empty list to a non-participant, 404 for an unknown event and 401 without a token', async () => {
    const event = await createEvent();
    const u = await createUser();
    const res = await api().get(`/api/events/${event.slug}/heats/me`).set('Authorization', u.auth);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, count: 0, data: [] });
    const missing = await api().get('/api/events/no-such-event/heats/me').set('Authorization', u.auth);
    expect(missing.status).toBe(404);
    expect(missing.body.error).toBe('Event not found');
    expect((await api().get(`/api/events/${event.slug}/heats/me`)).status).toBe(401);
  });
});

describe('GET /events/:slug/heats/all', () => {
  it('groups heats per user (only users with heats), count = number of users', async () => {
    const event = await createEvent();
    const a = await participantAt(event);
    const b = await participantAt(event);
    await participantAt(event); // a participant without heats is not listed
    await prisma.eventParticipant.update({
      where: { userId_eventId: { userId: b.user.id, eventId: event.id } },
      data: { competitorNumber: 'B7' },
    });
    await post(event.slug, a.auth, { heats: [{ divisionId: R.NOV, competitionTypeId: R.JJ, heatNumber: 1 }] });
    await post(event.slug, b.auth, {
      heats: [
        { divisionId: R.INT, competitionTypeId: R.STR, heatNumber: 3 },
        { divisionId: R.INT, competitionTypeId: R.JJ, heatNumber: 4, role: 'Leader' },
      ],
    });
    // heats at another event stay out
    const elsewhere = await participantAt();
    await post(elsewhere.event.slug, elsewhere.auth, {
      heats: [{ divisionId: R.NOV, competitionTypeId: R.JJ, heatNumber: 1 }],
    });

    const viewer = await createUser(); // any authenticated user may read the list
    const res = await api().get(`/api/events/${event.slug}/heats/all`).set('Authorization', viewer.auth);
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(2);
    const byUser = new Map(res.body.data.map((g: { userId: number }) => [g.userId, g]));
    expect(byUser.get(a.user.id)).toMatchObject({
      userId: a.user.id,
      username: a.user.username,
      avatar: a.user.avatar,
      competitorNumber: null,
      heats: [{ divisionId: R.NOV, competitionTypeId: R.JJ, heatNumber: 1, role: null, competitorNumber: null }],
    });
    const groupB = byUser.get(b.user.id) as {
      competitorNumber: string;
      heats: { competitionTypeId: number; competitorNumber: string }[];
    };
    expect(groupB.competitorNumber).toBe('B7');
    expect(groupB.heats.map((h) => h.competitionTypeId)).toEqual([R.JJ, R.STR]);
    expect(groupB.heats.every((h) => h.competitorNumber === 'B7')).toBe(true);
    const usernames = res.body.data.map((g: { username: string }) => g.username);
    expect(usernames).toEqual([...usernames].sort());
  });

  it('answers 404 for an unknown event and 401 without a token', async () => {
    const u = await createUser();
    expect((await api().get('/api/events/no-such-event/heats/all').set('Authorization', u.auth)).status).toBe(404);
    const event = await createEvent();
    expect((await api().get(`/api/events/${event.slug}/heats/all`)).status).toBe(401);
  });
});

describe('DELETE /events/:slug/heats/:id', () => {
  async function withHeats() {
    const p = await participantAt();
    const res = await post(p.event.slug, p.auth, {
      heats: [
        { divisionId: R.NOV, competitionTypeId: R.JJ, heatNumber: 1 },
        { divisionId: R.INT, competitionTypeId: R.JJ, heatNumber: 2 },
      ],
    });
    return { ...p, heatIds: res.body.data.map((h: { id: number }) => h.id) as number[] };
  }

  it("deletes the caller's heat: 200 { success, message }, logged", async () => {
    const p = await withHeats();
    const res = await api().delete(`/api/events/${p.event.slug}/heats/${p.heatIds[0]}`).set('Authorization', p.auth);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: expect.any(String) });
    expect(await prisma.heat.findUnique({ where: { id: p.heatIds[0] } })).toBeNull();
    expect(await prisma.heat.findUnique({ where: { id: p.heatIds[1] } })).not.toBeNull();
    const log = await prisma.activityLog.findFirst({ where: { userId: p.user.id, action: 'heat_delete' } });
    expect(log).toMatchObject({ category: 'event', resource: `event:${p.event.slug}` });
  });

  it('checks event 404 → heat 404 → owner 403', async () => {
    const p = await withHeats();
    const intruder = await participantAt(p.event);
    const del = (slug: string, id: string | number, auth: string) =>
      api().delete(`/api/events/${slug}/heats/${id}`).set('Authorization', auth);

    let res = await del('no-such-event', p.heatIds[0], intruder.auth);
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('Event not found');

    res = await del(p.event.slug, 2_000_000_000, intruder.auth);
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('Heat not found');

    res = await del(p.event.slug, 'abc', intruder.auth);
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('Heat not found');

    // a heat of another event is "not found" at this event
    const elsewhere = await withHeats();
    res = await del(p.event.slug, elsewhere.heatIds[0], elsewhere.auth);
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('Heat not found');

    res = await del(p.event.slug, p.heatIds[0], intruder.auth);
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('You can only delete your own heats');
    expect(await prisma.heat.findUnique({ where: { id: p.heatIds[0] } })).not.toBeNull();
  });

  it('requires a token', async () => {
    const p = await withHeats();
    expect((await api().delete(`/api/events/${p.event.slug}/heats/${p.heatIds[0]}`)).status).toBe(401);
  });
});

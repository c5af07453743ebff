import { prisma } from '../helpers/db';
import { testConfig, withTestContainer } from '../helpers/container';
import { createUser, DEFAULT_PASSWORD } from '../helpers/factories';
import { createHistory, type History } from '../helpers/privacy';
import { api } from '../helpers/server';

type Json = Record<string, unknown>;

/** Every key of a JSON value, at any depth. */
function keysOf(value: unknown, into: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((v) => keysOf(v, into));
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      into.push(k);
      keysOf(v, into);
    }
  }
  return into;
}

describe('GET /users/me/export', () => {
  let h: History;
  let res: Awaited<ReturnType<ReturnType<typeof api>['get']>>;
  let data: Json;

  beforeAll(async () => {
    h = await createHistory();
    res = await api().get('/api/users/me/export').set('Authorization', h.dana.auth);
    data = res.body.data;
  });

  it('answers one JSON attachment named after the username and the UTC date of exportedAt', () => {
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    const date = String(data.exportedAt).slice(0, 10);
    expect(res.headers['content-disposition']).toBe(
      `attachment; filename="${h.dana.user.username}-export-${date}.json"`,
    );
    expect(Object.keys(data).sort()).toEqual(
      [
        'activity',
        'exportedAt',
        'heats',
        'matches',
        'messages',
        'participations',
        'ratingsGiven',
        'ratingsReceived',
        'suggestions',
        'transfers',
        'user',
      ].sort(),
    );
  });

  it('holds the user object as /users/me answers it, without stats', async () => {
    const me = await api().get('/api/users/me').set('Authorization', h.dana.auth);
    const { stats: _stats, ...user } = me.body.data;
    expect(data.user).toEqual(user);
    expect(data.user).toMatchObject({
      lastName: 'Doe',
      registryId: '4242',
      city: 'Lyon',
      avatar: `${testConfig().publicUrl}/api/avatars/${h.dana.user.username}.svg`,
    });
  });

  it('holds the participation and the heats with their event', () => {
    expect(data.participations).toEqual([
      {
        event: {
          id: h.event.id,
          slug: h.event.slug,
          name: h.event.name,
          location: h.event.location,
          startDate: h.event.startDate.toISOString(),
          endDate: h.event.endDate.toISOString(),
        },
        joinedAt: expect.any(String),
        competitorNumber: '101',
        recorderOptOut: false,
      },
    ]);
    expect(data.heats).toEqual([
      expect.objectContaining({
        id: h.heats.dana,
        heatNumber: 1,
        competitorNumber: '101',
        event: { id: h.event.id, slug: h.event.slug, name: h.event.name },
      }),
    ]);
  });

  it("holds every message the user wrote, event and private, oldest first, and no one else's", () => {
    const messages = data.messages as { id: number; room: Json; content: string }[];
    expect(messages.map((m) => m.content)).toEqual(['hello from dana', 'anyone for a J&J?', 'private from dana']);
    const eventRef = { id: h.event.id, slug: h.event.slug, name: h.event.name };
    expect(messages[0].room).toEqual({ id: h.roomId, type: 'event', event: eventRef, matchSlug: null });
    expect(messages[2].room).toEqual({ id: h.match.roomId, type: 'private', event: eventRef, matchSlug: h.match.slug });
  });

  it('holds the matches as GET /matches shows them to the user', async () => {
    const list = await api().get('/api/matches').set('Authorization', h.dana.auth);
    expect(data.matches).toEqual(list.body.data);
    expect((data.matches as Json[]).map((m) => m.slug).sort()).toEqual([h.match.slug, h.pendingMatch.slug].sort());
  });

  it('holds the ratings given and received with the other person as a brief', () => {
    const brief = (u: History['partner']) => ({ id: u.user.id, username: u.user.username, avatar: u.user.avatar });
    expect(data.ratingsGiven).toEqual([
      expect.objectContaining({ id: h.ratingGivenId, score: 5, comment: 'Great lead', rated: brief(h.partner) }),
    ]);
    expect(data.ratingsReceived).toEqual([
      expect.objectContaining({ id: h.ratingReceivedId, score: 3, comment: 'Fine', rater: brief(h.partner) }),
    ]);
  });

  it('holds the suggestions of its heats and those it records, every status, with their event', () => {
    const suggestions = data.suggestions as { asDancer: Json[]; asRecorder: Json[] };
    expect(suggestions.asDancer.map((s) => s.id)).toEqual([h.suggestions.dana]);
    expect(suggestions.asRecorder.map((s) => [s.id, s.status]).sort()).toEqual(
      [
        [h.suggestions.partner, 'pending'],
        [h.suggestions.carol, 'accepted'],
        [h.suggestions.erin, 'rejected'],
      ].sort(),
    );
    for (const s of [...suggestions.asDancer, ...suggestions.asRecorder])
      expect(s.event).toEqual({ id: h.event.id, slug: h.event.slug, name: h.event.name });
  });

  it('holds the transfer records as GET /matches/:slug/transfers shows them', async () => {
    const list = await api().get(`/api/matches/${h.match.slug}/transfers`).set('Authorization', h.dana.auth);
    expect(data.transfers).toEqual(list.body.data);
    expect((data.transfers as Json[]).map((t) => t.id)).toEqual([h.transferId]);
  });

  it('holds its own activity-log entries with their address and without metadata', async () => {
    const activity = data.activity as Json[];
    const stored = await prisma.activityLog.findMany({
      where: { userId: h.dana.user.id, action: { not: 'data_export' } },
    });
    expect(activity.map((a) => a.id).sort()).toEqual(stored.map((s) => s.id).sort());
    const profile = activity.find((a) => a.action === 'profile_update')!;
    expect(Object.keys(profile).sort()).toEqual([
      'action',
      'category',
      'createdAt',
      'id',
      'ip',
      'method',
      'path',
      'resource',
      'success',
    ]);
    expect(profile.ip).toBe(stored.find((s) => s.id === profile.id)!.ip);
    expect(profile.ip).not.toBeNull();
  });

  it("never holds a secret or another user's e-mail", () => {
    const keys = keysOf(data);
    expect(keys.filter((k) => /hash|token|secret|password/i.test(k) || /code$/i.test(k))).toEqual([]);
    const text = JSON.stringify(data);
    for (const other of [h.partner, h.carol, h.erin, h.admin]) expect(text).not.toContain(other.user.email);
    expect(text).not.toContain('private from partner');
    expect(text).not.toContain('hi dana');
  });

  it('is logged as data_export', async () => {
    const entry = await prisma.activityLog.findFirstOrThrow({
      where: { userId: h.dana.user.id, action: 'data_export' },
    });
    expect(entry).toMatchObject({ category: 'auth', success: true });
  });

  it('answers empty lists for a user without history', async () => {
    const u = await createUser();
    const empty = await api().get('/api/users/me/export').set('Authorization', u.auth);
    expect(empty.status).toBe(200);
    const d = empty.body.data;
    for (const key of [
      'participations',
      'heats',
      'messages',
      'matches',
      'ratingsGiven',
      'ratingsReceived',
      'transfers',
      'activity',
    ])
      expect(d[key]).toEqual([]);
    expect(d.suggestions).toEqual({ asDancer: [], asRecorder: [] });
  });

  it('shows a received rating of a deleted rater with the placeholder', async () => {
    const rater = h.partner;
    await api().delete('/api/users/me').set('Authorization', rater.auth).send({ currentPassword: DEFAULT_PASSWORD });
    // the partner's rating of dana stays (anonymised); dana's rating of the partner goes with the partner
    const again = await api().get('/api/users/me/export').set('Authorization', h.dana.auth);
    expect(again.body.data.ratingsReceived).toEqual([
      expect.objectContaining({
        id: h.ratingReceivedId,
        comment: null,
        rater: { id: null, username: 'deleted-user', avatar: null },
      }),
    ]);
    expect(again.body.data.ratingsGiven).toEqual([]);
  });

  it('answers 401 without a token', async () => {
    const res401 = await api().get('/api/users/me/export');
    expect(res401.status).toBe(401);
    expect(res401.body).toMatchObject({ code: 'AUTH_REQUIRED' });
  });

  it('is limited per user by the e-mail tier: 429 RATE_LIMITED beyond it, another user still served', async () => {
    await withTestContainer({ rateLimit: { enabled: true, email: { max: 2, windowMs: 60_000 } } }, async (c) => {
      const a = await createUser();
      const b = await createUser();
      for (let i = 0; i < 2; i++)
        expect((await api(c).get('/api/users/me/export').set('Authorization', a.auth)).status).toBe(200);
      const limited = await api(c).get('/api/users/me/export').set('Authorization', a.auth);
      expect(limited.status).toBe(429);
      expect(limited.body).toMatchObject({ code: 'RATE_LIMITED' });
      expect((await api(c).get('/api/users/me/export').set('Authorization', b.auth)).status).toBe(200);
    });
  });
});

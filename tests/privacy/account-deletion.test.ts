import { prisma } from '../helpers/db';
import { createAdmin, createUser, DEFAULT_PASSWORD } from '../helpers/factories';
import { createHistory, type History } from '../helpers/privacy';
import { api } from '../helpers/server';

const PLACEHOLDER_BRIEF = { id: null, username: 'deleted-user', avatar: null };

const deleteMe = (h: { auth: string }, body: object = { currentPassword: DEFAULT_PASSWORD }) =>
  api().delete('/api/users/me').set('Authorization', h.auth).send(body);

/** Everything of the history that a deletion changes, read from the database. */
async function snapshot(h: History) {
  const d = h.dana.user.id;
  return {
    user: await prisma.user.findUnique({ where: { id: d } }),
    participations: await prisma.eventParticipant.count({ where: { userId: d } }),
    participantsCount: (await prisma.event.findUniqueOrThrow({ where: { id: h.event.id } })).participantsCount,
    heats: await prisma.heat.count({ where: { userId: d } }),
    messages: await prisma.message.findMany({
      where: { roomId: { in: [h.roomId, h.match.roomId] } },
      orderBy: { id: 'asc' },
    }),
    matches: await prisma.match.count({ where: { OR: [{ user1Id: d }, { user2Id: d }] } }),
    transfers: await prisma.videoTransfer.count({ where: { id: h.transferId } }),
    ratings: await prisma.rating.findMany({
      where: { id: { in: [h.ratingGivenId, h.ratingReceivedId] } },
      orderBy: { id: 'asc' },
    }),
    suggestions: await prisma.recordingSuggestion.findMany({
      where: { id: { in: Object.values(h.suggestions) } },
      orderBy: { id: 'asc' },
    }),
    run: await prisma.matchingRun.findUniqueOrThrow({ where: { id: h.runByDanaId } }),
    blocks: await prisma.userBlock.count({ where: { OR: [{ blockerId: d }, { blockedId: d }] } }),
    activity: await prisma.activityLog.findMany({
      where: { OR: [{ userId: d }, { username: h.dana.user.username }] },
      orderBy: { id: 'asc' },
    }),
  };
}

describe('DELETE /users/me', () => {
  let h: History;
  let entriesBefore: { id: number }[];
  let partnerStatsBefore: { ratings: { received: number; given: number; average: number | null } };

  beforeAll(async () => {
    h = await createHistory();
    entriesBefore = await prisma.activityLog.findMany({ where: { userId: h.dana.user.id }, select: { id: true } });
    partnerStatsBefore = (await api().get('/api/users/me').set('Authorization', h.partner.auth)).body.data.stats;
    const res = await deleteMe(h.dana);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: 'Account deleted', data: { message: 'Account deleted' } });
  });

  it('removes the account: its token answers 401 and login fails like an unknown e-mail', async () => {
    expect(await prisma.user.findUnique({ where: { id: h.dana.user.id } })).toBeNull();
    const me = await api().get('/api/users/me').set('Authorization', h.dana.auth);
    expect(me.status).toBe(401);
    expect(me.body).toMatchObject({ code: 'INVALID_TOKEN', error: 'Invalid or expired token' });
    const login = await api().post('/api/auth/login').send({ email: h.dana.user.email, password: DEFAULT_PASSWORD });
    expect(login.status).toBe(401);
    expect(login.body).toMatchObject({ code: 'INVALID_CREDENTIALS', error: 'Invalid email or password' });
  });

  it('answers 404 for the public profile and the ratings of the deleted username', async () => {
    for (const path of [`/api/users/${h.dana.user.username}`, `/api/users/${h.dana.user.username}/ratings`]) {
      const res = await api().get(path).set('Authorization', h.partner.auth);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ code: 'USER_NOT_FOUND', error: 'User not found' });
    }
  });

  it('removes the participation and the heats, and each event counts one participant less', async () => {
    expect(await prisma.eventParticipant.count({ where: { userId: h.dana.user.id } })).toBe(0);
    expect(await prisma.heat.count({ where: { userId: h.dana.user.id } })).toBe(0);
    const details = await api().get(`/api/events/${h.event.slug}/details`).set('Authorization', h.partner.auth);
    expect(details.body.data.stats.totalParticipants).toBe(3);
    expect(details.body.data.participants.map((p: { userId: number }) => p.userId)).not.toContain(h.dana.user.id);
    const pub = await api().get(`/api/events/${h.event.slug}`);
    expect(pub.body.data.participantsCount).toBe(3);
    const list = await api().get('/api/events').set('Authorization', h.partner.auth);
    expect(list.body.data.find((e: { slug: string }) => e.slug === h.event.slug).participantsCount).toBe(3);
    const all = await api().get(`/api/events/${h.event.slug}/heats/all`).set('Authorization', h.partner.auth);
    expect(all.body.data.map((u: { userId: number }) => u.userId)).not.toContain(h.dana.user.id);
  });

  it('keeps the event-chat messages in place as "[deleted]" by the placeholder', async () => {
    const res = await api().get(`/api/events/${h.event.slug}/messages`).set('Authorization', h.partner.auth);
    expect(res.status).toBe(200);
    const byId = new Map(res.body.data.map((m: { id: number }) => [m.id, m]));
    expect(res.body.data.map((m: { id: number }) => m.id)).toEqual([...h.danaMessageIds, h.partnerMessageId]);
    for (const id of h.danaMessageIds) {
      expect(byId.get(id)).toMatchObject({
        id,
        roomId: h.roomId,
        userId: null,
        username: 'deleted-user',
        avatar: null,
        content: '[deleted]',
      });
    }
    expect(byId.get(h.partnerMessageId)).toMatchObject({ userId: h.partner.user.id, content: 'hi dana' });
    expect(
      await prisma.message.count({
        where: { content: { in: ['hello from dana', 'anyone for a J&J?'] }, roomId: h.roomId },
      }),
    ).toBe(0);
  });

  it("removes every match with its private room, messages and transfer records from the partners' views", async () => {
    const partnerMatches = await api().get('/api/matches').set('Authorization', h.partner.auth);
    expect(partnerMatches.body.data.map((m: { slug: string }) => m.slug)).not.toContain(h.match.slug);
    const carolMatches = await api().get('/api/matches').set('Authorization', h.carol.auth);
    expect(carolMatches.body.data.map((m: { slug: string }) => m.slug)).not.toContain(h.pendingMatch.slug);
    expect((await api().get(`/api/matches/${h.match.slug}`).set('Authorization', h.partner.auth)).status).toBe(404);
    expect(await prisma.chatRoom.count({ where: { id: h.match.roomId } })).toBe(0);
    expect(await prisma.message.count({ where: { roomId: h.match.roomId } })).toBe(0);
    expect(await prisma.videoTransfer.count({ where: { id: h.transferId } })).toBe(0);
  });

  it("keeps the ratings it gave in the rated user's average, anonymised and without comment", async () => {
    const res = await api().get(`/api/users/${h.partner.user.username}/ratings`).set('Authorization', h.carol.auth);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ averageScore: 5, totalRatings: 1 });
    expect(res.body.data.ratings).toEqual([
      expect.objectContaining({
        id: h.ratingGivenId,
        score: 5,
        comment: null,
        wouldCollaborateAgain: true,
        rater: PLACEHOLDER_BRIEF,
      }),
    ]);
    const row = await prisma.rating.findUniqueOrThrow({ where: { id: h.ratingGivenId } });
    expect(row).toMatchObject({ raterId: null, comment: null, matchId: null });
  });

  it("removes the ratings it received, so their raters' given counts drop", async () => {
    expect(await prisma.rating.count({ where: { id: h.ratingReceivedId } })).toBe(0);
    const me = await api().get('/api/users/me').set('Authorization', h.partner.auth);
    expect(me.body.data.stats.ratings).toEqual({
      ...partnerStatsBefore.ratings,
      given: partnerStatsBefore.ratings.given - 1,
    });
    expect(me.body.data.stats.matches.total).toBe(0);
  });

  it('turns its pending and accepted recordings into not_found RECORDER_DELETED and deletes its rejected ones', async () => {
    const rows = await prisma.recordingSuggestion.findMany({
      where: { id: { in: [h.suggestions.partner, h.suggestions.carol, h.suggestions.erin] } },
    });
    const unfilled = {
      status: 'not_found',
      recorderId: null,
      why: null,
      pinned: false,
      unfilledReason: 'RECORDER_DELETED',
    };
    expect(rows.find((r) => r.id === h.suggestions.partner)).toMatchObject({ ...unfilled, heatId: h.heats.partner });
    expect(rows.find((r) => r.id === h.suggestions.carol)).toMatchObject({ ...unfilled, heatId: h.heats.carol });
    expect(rows.find((r) => r.id === h.suggestions.erin)).toBeUndefined();
    const carolView = await api()
      .get(`/api/events/${h.event.slug}/match-suggestions`)
      .set('Authorization', h.carol.auth);
    expect(carolView.body.data.toBeRecorded).toEqual([
      expect.objectContaining({
        id: h.suggestions.carol,
        status: 'not_found',
        recorder: null,
        unfilledReason: 'RECORDER_DELETED',
      }),
    ]);
  });

  it("removes the suggestions of its own heats, and keeps its matching run without the trigger's id", async () => {
    expect(await prisma.recordingSuggestion.count({ where: { id: h.suggestions.dana } })).toBe(0);
    const partnerView = await api()
      .get(`/api/events/${h.event.slug}/match-suggestions`)
      .set('Authorization', h.partner.auth);
    expect(partnerView.body.data.toRecord).toEqual([]);
    expect(await prisma.matchingRun.findUniqueOrThrow({ where: { id: h.runByDanaId } })).toMatchObject({
      triggeredById: null,
    });
  });

  it('removes blocks made by or against the user', async () => {
    expect(
      await prisma.userBlock.count({ where: { OR: [{ blockedId: h.erin.user.id }, { blockerId: h.carol.user.id }] } }),
    ).toBe(0);
  });

  it('keeps its activity-log entries without who and from where, and logs account_delete by the placeholder', async () => {
    const ids = entriesBefore.map((e) => e.id);
    expect(ids.length).toBeGreaterThan(0);
    const kept = await prisma.activityLog.findMany({ where: { id: { in: ids } } });
    expect(kept).toHaveLength(ids.length);
    for (const entry of kept) expect(entry).toMatchObject({ userId: null, username: 'deleted-user', ip: null });
    expect(kept.find((e) => e.action === 'profile_update')).toMatchObject({ method: 'PATCH', path: '/api/users/me' });

    const res = await api().get('/api/admin/activity-logs?action=account_delete').set('Authorization', h.admin.auth);
    const entry = res.body.data.find((e: { resource: string }) => e.resource === `user:${h.dana.user.id}`);
    expect(entry).toMatchObject({
      category: 'auth',
      action: 'account_delete',
      success: true,
      userId: null,
      username: 'deleted-user',
      ip: null,
    });
  });

  it('frees the e-mail and the username: registering both gives a new account, the old token stays refused', async () => {
    const res = await api()
      .post('/api/auth/register')
      .send({ username: h.dana.user.username, email: h.dana.user.email, password: 'another123' });
    expect(res.status).toBe(201);
    expect(res.body.data.user.id).not.toBe(h.dana.user.id);
    expect((await api().get('/api/users/me').set('Authorization', h.dana.auth)).status).toBe(401);
  });
});

describe('DELETE /users/me and queued mail', () => {
  // mail jobs hold references ({ kind, userId, ... }), never the mail itself (docs/security-hardening.md)
  const queuedFor = async (userId: number) =>
    (
      await prisma.$queryRawUnsafe<{ n: number }[]>(
        `SELECT count(*)::int AS n FROM pgboss.job WHERE state IN ('created', 'retry') AND data ->> 'userId' = $1`,
        String(userId),
      )
    )[0].n;

  it('drops the mails still queued to the address', async () => {
    const u = await createUser({ emailVerified: false });
    const resend = await api().post('/api/auth/resend-verification').send({ email: u.user.email });
    expect(resend.status).toBe(200);
    expect(await queuedFor(u.user.id)).toBe(1);
    expect((await deleteMe(u)).status).toBe(200);
    expect(await queuedFor(u.user.id)).toBe(0);
  });
});

describe('DELETE /users/me refusals', () => {
  it('asks for the current password with a detail for currentPassword, and changes nothing', async () => {
    const u = await createUser();
    const res = await deleteMe(u, {});
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'VALIDATION_ERROR', error: 'Validation failed' });
    expect(res.body.details).toEqual([expect.objectContaining({ field: 'currentPassword' })]);
    expect(await prisma.user.count({ where: { id: u.user.id } })).toBe(1);
  });

  it('answers 400 WRONG_PASSWORD for a wrong password, counting a failed attempt and logging it', async () => {
    const u = await createUser();
    const res = await deleteMe(u, { currentPassword: 'not-the-password' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'WRONG_PASSWORD', error: 'Current password is incorrect' });
    expect(await prisma.user.findUniqueOrThrow({ where: { id: u.user.id } })).toMatchObject({ failedLoginAttempts: 1 });
    const entry = await prisma.activityLog.findFirstOrThrow({ where: { userId: u.user.id, action: 'account_delete' } });
    expect(entry).toMatchObject({ success: false, category: 'auth' });
  });

  it('locks the account at the maximum of wrong passwords with 423, then refuses even the right one', async () => {
    const u = await createUser();
    const max = 5;
    for (let i = 1; i < max; i++) expect((await deleteMe(u, { currentPassword: 'wrong' })).status).toBe(400);
    const locking = await deleteMe(u, { currentPassword: 'wrong' });
    expect(locking.status).toBe(423);
    expect(locking.body).toMatchObject({ code: 'ACCOUNT_LOCKED' });
    expect(locking.headers['retry-after']).toBeDefined();
    const right = await deleteMe(u);
    expect(right.status).toBe(423);
    expect(await prisma.user.count({ where: { id: u.user.id } })).toBe(1);
  });

  it('answers 401 without a token', async () => {
    const res = await api().delete('/api/users/me').send({ currentPassword: 'x' });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ code: 'AUTH_REQUIRED', error: 'Authentication required' });
  });
});

describe('a deletion that fails half-way', () => {
  it('changes nothing: the account stays whole', async () => {
    const h = await createHistory();
    const before = await snapshot(h);
    // the last step (the account row) fails on purpose, after every feature did its part
    const fn = `privacy_fail_${h.dana.user.id}`;
    await prisma.$executeRawUnsafe(
      `CREATE FUNCTION ${fn}() RETURNS trigger AS $$ BEGIN IF OLD.id = ${h.dana.user.id} THEN RAISE EXCEPTION 'refused on purpose'; END IF; RETURN OLD; END $$ LANGUAGE plpgsql`,
    );
    await prisma.$executeRawUnsafe(
      `CREATE TRIGGER ${fn} BEFORE DELETE ON "User" FOR EACH ROW EXECUTE FUNCTION ${fn}()`,
    );
    try {
      const res = await deleteMe(h.dana);
      expect(res.status).toBe(500);
      expect(res.body).toMatchObject({ success: false, code: 'INTERNAL_ERROR' });
    } finally {
      await prisma.$executeRawUnsafe(`DROP TRIGGER ${fn} ON "User"`);
      await prisma.$executeRawUnsafe(`DROP FUNCTION ${fn}()`);
    }
    const after = await snapshot(h);
    expect(after).toEqual(before);
    expect(after.user).not.toBeNull();
    expect((await api().get('/api/users/me').set('Authorization', h.dana.auth)).status).toBe(200);
  });
});

describe('DELETE /admin/users/:username', () => {
  it('deletes any user by username regardless of case, logged as user_delete by the admin', async () => {
    const admin = await createAdmin();
    const target = await createUser();
    const res = await api()
      .delete(`/api/admin/users/${target.user.username.toUpperCase()}`)
      .set('Authorization', admin.auth)
      .set('X-Forwarded-For', '198.51.100.9');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: 'User deleted', data: { message: 'User deleted' } });
    expect(await prisma.user.count({ where: { id: target.user.id } })).toBe(0);
    const entry = await prisma.activityLog.findFirstOrThrow({
      where: { action: 'user_delete', resource: `user:${target.user.id}` },
    });
    expect(entry).toMatchObject({
      category: 'admin',
      success: true,
      userId: admin.user.id,
      username: admin.user.username,
    });
    expect((await api().get('/api/users/me').set('Authorization', target.auth)).status).toBe(401);
  });

  it('logs an admin deleting their own account by the placeholder, without id or address', async () => {
    await createAdmin();
    const admin = await createAdmin();
    const res = await api().delete(`/api/admin/users/${admin.user.username}`).set('Authorization', admin.auth);
    expect(res.status).toBe(200);
    const entry = await prisma.activityLog.findFirstOrThrow({
      where: { action: 'user_delete', resource: `user:${admin.user.id}` },
    });
    expect(entry).toMatchObject({ category: 'admin', success: true, userId: null, username: 'deleted-user', ip: null });
  });

  it('answers 404 USER_NOT_FOUND for an unknown username', async () => {
    const admin = await createAdmin();
    const res = await api().delete('/api/admin/users/nobody_here_at_all').set('Authorization', admin.auth);
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: 'USER_NOT_FOUND', error: 'User not found' });
  });

  it('answers 403 ADMIN_REQUIRED for a non-admin and 401 without a token, deleting nothing', async () => {
    const u = await createUser();
    const target = await createUser();
    const forbidden = await api().delete(`/api/admin/users/${target.user.username}`).set('Authorization', u.auth);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body).toMatchObject({ code: 'ADMIN_REQUIRED' });
    expect((await api().delete(`/api/admin/users/${target.user.username}`)).status).toBe(401);
    expect(await prisma.user.count({ where: { id: target.user.id } })).toBe(1);
  });
});

describe('the last admin', () => {
  /** Runs `fn` while the given admins are the only ones (the run's other admins are demoted meanwhile). */
  async function asOnlyAdmins(keep: number[], fn: () => Promise<void>) {
    const others = await prisma.user.findMany({ where: { isAdmin: true, id: { notIn: keep } }, select: { id: true } });
    await prisma.user.updateMany({ where: { id: { in: others.map((o) => o.id) } }, data: { isAdmin: false } });
    try {
      await fn();
    } finally {
      await prisma.user.updateMany({ where: { id: { in: others.map((o) => o.id) } }, data: { isAdmin: true } });
    }
  }

  it('cannot delete themselves: 409 LAST_ADMIN, nothing changes', async () => {
    const admin = await createAdmin();
    await asOnlyAdmins([admin.user.id], async () => {
      const res = await deleteMe(admin);
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ code: 'LAST_ADMIN', error: 'The last admin account cannot be deleted' });
      const byRoute = await api().delete(`/api/admin/users/${admin.user.username}`).set('Authorization', admin.auth);
      expect(byRoute.status).toBe(409);
      expect(await prisma.user.count({ where: { id: admin.user.id } })).toBe(1);
    });
  });

  it('of two admins deleting each other at once, exactly one succeeds', async () => {
    const a = await createAdmin();
    const b = await createAdmin();
    await asOnlyAdmins([a.user.id, b.user.id], async () => {
      const [ra, rb] = await Promise.all([
        api().delete(`/api/admin/users/${b.user.username}`).set('Authorization', a.auth),
        api().delete(`/api/admin/users/${a.user.username}`).set('Authorization', b.auth),
      ]);
      const statuses = [ra.status, rb.status].sort();
      expect(statuses[0]).toBe(200);
      expect([401, 409]).toContain(statuses[1]);
      expect(await prisma.user.count({ where: { id: { in: [a.user.id, b.user.id] } } })).toBe(1);
    });
  });

  it('may be deleted by another admin while one remains', async () => {
    const a = await createAdmin();
    const b = await createAdmin();
    await asOnlyAdmins([a.user.id, b.user.id], async () => {
      const res = await api().delete(`/api/admin/users/${b.user.username}`).set('Authorization', a.auth);
      expect(res.status).toBe(200);
    });
  });
});

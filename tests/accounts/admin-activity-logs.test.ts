import { systemActor } from '../../src/lib/actor';
import type { ActivityRecord } from '../../src/modules/activity-log/activity-log.service';
import { testContainer } from '../helpers/container';
import { prisma } from '../helpers/db';
import { createAdmin, createUser, unique } from '../helpers/factories';
import { api, useTestServer } from '../helpers/server';
import { connectSocket, emitAck, nextEvent, receivesWithin } from '../helpers/socket';

/** An entry recorded by the service, as a caller without a user but with a username. */
const record = (activity: ActivityRecord, username: string | null = null) =>
  testContainer().audit.record({ ...systemActor('test'), method: null, username }, activity);

describe('admin activity-log endpoints', () => {
  it('refuses non-admins with 403 "Admin access required" and anonymous callers with 401', async () => {
    const { auth } = await createUser();
    for (const path of [
      '/api/admin/activity-logs',
      '/api/admin/activity-logs/actions',
      '/api/admin/activity-logs/stats',
    ]) {
      const res = await api().get(path).set('Authorization', auth);
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ success: false, error: 'Admin access required', code: 'ADMIN_REQUIRED' });
      expect((await api().get(path)).status).toBe(401);
    }
  });

  it('lists entries newest first, 50 a page, with pagination and filters', async () => {
    const admin = await createAdmin();
    const username = unique('logged_');
    const action = unique('test_action_');
    for (let i = 0; i < 55; i++) {
      await record({ category: 'event', action, success: i % 5 !== 0, metadata: { i } }, username);
    }
    const page1 = await api().get('/api/admin/activity-logs').query({ action }).set('Authorization', admin.auth);
    expect(page1.status).toBe(200);
    expect(page1.body.count).toBe(50);
    expect(page1.body.pagination).toEqual({ page: 1, limit: 50, total: 55, totalPages: 2 });
    expect(page1.body.data[0].metadata).toEqual({ i: 54 });
    expect(Object.keys(page1.body.data[0]).sort()).toEqual(
      [
        'action',
        'category',
        'createdAt',
        'id',
        'ip',
        'metadata',
        'method',
        'path',
        'resource',
        'success',
        'userId',
        'username',
      ].sort(),
    );
    const page2 = await api()
      .get('/api/admin/activity-logs')
      .query({ action, page: 2 })
      .set('Authorization', admin.auth);
    expect(page2.body.count).toBe(5);
    expect(page2.body.data[4].metadata).toEqual({ i: 0 });

    const failures = await api()
      .get('/api/admin/activity-logs')
      .query({ username, success: 'false', category: 'event' })
      .set('Authorization', admin.auth);
    expect(failures.body.pagination.total).toBe(11);
    const none = await api()
      .get('/api/admin/activity-logs')
      .query({ action, category: 'auth' })
      .set('Authorization', admin.auth);
    expect(none.body.pagination.total).toBe(0);
    const future = await api()
      .get('/api/admin/activity-logs')
      .query({ action, from: new Date(Date.now() + 60_000).toISOString() })
      .set('Authorization', admin.auth);
    expect(future.body.pagination.total).toBe(0);
    const past = await api()
      .get('/api/admin/activity-logs')
      .query({ action, to: new Date(Date.now() + 60_000).toISOString() })
      .set('Authorization', admin.auth);
    expect(past.body.pagination.total).toBe(55);
  });

  it.each([[{ page: '0' }], [{ page: 'x' }], [{ category: 'nope' }], [{ success: 'maybe' }], [{ from: 'yesterday' }]])(
    'refuses the query %j with 400',
    async (q) => {
      const admin = await createAdmin();
      const res = await api().get('/api/admin/activity-logs').query(q).set('Authorization', admin.auth);
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('Validation failed');
    },
  );

  it('lists distinct actions and answers statistics', async () => {
    const admin = await createAdmin();
    const action = unique('stat_action_');
    await record({ category: 'chat', action, success: false });
    await record({ category: 'chat', action });
    const actions = await api().get('/api/admin/activity-logs/actions').set('Authorization', admin.auth);
    expect(actions.status).toBe(200);
    expect(actions.body.data).toContain(action);
    expect(new Set(actions.body.data).size).toBe(actions.body.data.length);

    const stats = await api().get('/api/admin/activity-logs/stats').set('Authorization', admin.auth);
    expect(stats.status).toBe(200);
    // the run's database is shared: other files write entries dated in the past (IP retention)
    const [total, failures, chat, last24h] = await Promise.all([
      prisma.activityLog.count(),
      prisma.activityLog.count({ where: { success: false } }),
      prisma.activityLog.count({ where: { category: 'chat' } }),
      prisma.activityLog.count({ where: { createdAt: { gte: new Date(Date.now() - 24 * 3600 * 1000) } } }),
    ]);
    expect(stats.body.data).toMatchObject({ total, failures, last24h });
    expect(Object.keys(stats.body.data.byCategory).sort()).toEqual(['admin', 'auth', 'chat', 'event', 'match']);
    expect(stats.body.data.byCategory.chat).toBe(chat);
    expect(stats.body.data.topActions.length).toBeGreaterThan(0);
    expect(stats.body.data.topActions[0]).toEqual({ action: expect.any(String), count: expect.any(Number) });
  });
});

describe('live activity log over Socket.IO', () => {
  const server = useTestServer();

  it('streams a login to an admin who joined admin_activity_logs, and refuses a non-admin join', async () => {
    const admin = await createAdmin();
    const plain = await createUser();
    const adminSocket = await connectSocket(server.url, admin.token);
    const userSocket = await connectSocket(server.url, plain.token);
    try {
      expect(await emitAck(adminSocket, 'join_admin_activity_logs')).toEqual({ success: true });
      expect(await emitAck(userSocket, 'join_admin_activity_logs')).toEqual({
        success: false,
        error: 'Admin access required',
        code: 'ADMIN_REQUIRED',
      });

      const loginUser = await createUser();
      const got = nextEvent<Record<string, unknown>>(adminSocket, 'activity_log_entry');
      const notGot = receivesWithin(userSocket, 'activity_log_entry', 500);
      const res = await server.request
        .post('/api/auth/login')
        .send({ email: loginUser.user.email, password: loginUser.password });
      expect(res.status).toBe(200);
      await expect(got).resolves.toMatchObject({
        category: 'auth',
        action: 'login',
        username: loginUser.user.username,
        success: true,
      });
      await expect(notGot).resolves.toBe(false);
    } finally {
      adminSocket.close();
      userSocket.close();
    }
  });
});

describe('admin activity-log query parameters given twice', () => {
  it('answers 400', async () => {
    const admin = await createAdmin();
    const res = await api().get('/api/admin/activity-logs?page=1&page=2').set('Authorization', admin.auth);
    expect(res.status).toBe(400);
  });
});

import { prisma } from '../helpers/db';
import { createAdmin, createUser, type TestUser } from '../helpers/factories';
import { useTestServer } from '../helpers/server';
import { connectSocket, useSocketClients } from '../helpers/socket';

describe('suspension', () => {
  const server = useTestServer();
  const connect = useSocketClients(() => server.url);
  let admin: TestUser;
  beforeAll(async () => {
    admin = await createAdmin();
  });
  const suspend = (user: TestUser | string, body: object, by: TestUser = admin) =>
    server.request
      .post(`/api/admin/users/${typeof user === 'string' ? user : user.user.username}/suspend`)
      .set('Authorization', by.auth)
      .send(body);
  const login = (user: TestUser, password = user.password) =>
    server.request.post('/api/auth/login').send({ email: user.user.email, password });

  it('suspends a user: 200 with the suspension, and an admin/user_suspend entry', async () => {
    const bob = await createUser({ firstName: 'Bob' });
    const until = new Date(Date.now() + 3_600_000).toISOString();
    const res = await suspend(bob.user.username.toUpperCase(), { reason: '  harassment at the social  ', until });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      user: { id: bob.user.id, username: bob.user.username, avatar: bob.user.avatar, firstName: 'Bob', lastName: null },
      suspended: true,
      reason: 'harassment at the social',
      until,
      suspendedAt: expect.any(String),
      suspendedBy: { id: admin.user.id, username: admin.user.username, avatar: admin.user.avatar },
    });
    const row = await prisma.user.findUniqueOrThrow({ where: { id: bob.user.id } });
    expect(row).toMatchObject({
      suspensionReason: 'harassment at the social',
      suspendedById: admin.user.id,
      suspendedUntil: new Date(until),
    });
    const audit = await prisma.activityLog.findFirst({
      where: { action: 'user_suspend', resource: `user:${bob.user.username}` },
    });
    expect(audit).toMatchObject({
      category: 'admin',
      userId: admin.user.id,
      success: true,
      metadata: { reason: 'harassment at the social', until },
    });
  });

  it('ends the sessions at once: old tokens get 401, sockets are disconnected and a handshake with an old token is refused', async () => {
    const bob = await createUser();
    const socket = await connect(bob);
    const disconnected = new Promise<string>((resolve) => socket.once('disconnect', (reason) => resolve(reason)));
    await suspend(bob, { reason: 'spam' }).expect(200);
    await expect(disconnected).resolves.toBeDefined();
    const me = await server.request.get('/api/users/me').set('Authorization', bob.auth);
    expect(me.status).toBe(401);
    expect(me.body).toEqual({ success: false, error: 'Invalid or expired token', code: 'INVALID_TOKEN' });
    await expect(connectSocket(server.url, bob.token)).rejects.toThrow('Invalid or expired token');
  });

  it('refuses login with the right password (403 ACCOUNT_SUSPENDED with until, audited) and a wrong one as usual (401)', async () => {
    const bob = await createUser();
    await suspend(bob, { reason: 'spam' }).expect(200);
    const refused = await login(bob);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({
      success: false,
      error: 'Account suspended',
      code: 'ACCOUNT_SUSPENDED',
      until: null,
    });
    const wrong = await login(bob, 'not-the-password');
    expect(wrong.status).toBe(401);
    expect(wrong.body.code).toBe('INVALID_CREDENTIALS');
    const audit = await prisma.activityLog.findFirst({ where: { action: 'login_suspended', userId: bob.user.id } });
    expect(audit).toMatchObject({ category: 'auth', success: false });
  });

  it('answers `until` of a timed suspension at login, and login works again by itself once it has passed', async () => {
    const bob = await createUser();
    const until = new Date(Date.now() + 60_000).toISOString();
    await suspend(bob, { reason: 'cool down', until }).expect(200);
    expect((await login(bob)).body).toMatchObject({ code: 'ACCOUNT_SUSPENDED', until });
    // the end has come (moved into the past rather than waiting a minute)
    await prisma.user.update({ where: { id: bob.user.id }, data: { suspendedUntil: new Date(Date.now() - 1000) } });
    const back = await login(bob);
    expect(back.status).toBe(200);
    // a token issued before the suspension stays refused after it ended
    expect((await server.request.get('/api/users/me').set('Authorization', bob.auth)).status).toBe(401);
    expect(
      (await server.request.get('/api/users/me').set('Authorization', `Bearer ${back.body.data.token}`)).status,
    ).toBe(200);
  });

  it('lifting answers 200 { user, suspended: false } (also when not suspended), lets login work again and keeps old tokens refused', async () => {
    const bob = await createUser();
    await suspend(bob, { reason: 'spam' }).expect(200);
    const lifted = await server.request
      .delete(`/api/admin/users/${bob.user.username}/suspend`)
      .set('Authorization', admin.auth)
      .expect(200);
    expect(lifted.body.data).toEqual({
      user: { id: bob.user.id, username: bob.user.username, avatar: bob.user.avatar, firstName: null, lastName: null },
      suspended: false,
    });
    expect((await login(bob)).status).toBe(200);
    expect((await server.request.get('/api/users/me').set('Authorization', bob.auth)).status).toBe(401);
    await server.request
      .delete(`/api/admin/users/${bob.user.username}/suspend`)
      .set('Authorization', admin.auth)
      .expect(200);
    expect(
      await prisma.activityLog.count({ where: { action: 'user_unsuspend', resource: `user:${bob.user.username}` } }),
    ).toBe(2);
  });

  it('suspending again replaces reason and until', async () => {
    const bob = await createUser();
    const first = await suspend(bob, { reason: 'first', until: new Date(Date.now() + 60_000).toISOString() }).expect(
      200,
    );
    const second = await suspend(bob, { reason: 'second', until: null }).expect(200);
    expect(second.body.data).toMatchObject({ reason: 'second', until: null, suspendedAt: first.body.data.suspendedAt });
    expect(await prisma.user.findUniqueOrThrow({ where: { id: bob.user.id } })).toMatchObject({
      suspensionReason: 'second',
      suspendedUntil: null,
    });
  });

  describe('refusals, in order, change nothing', () => {
    it('401 without a token, 403 for a non-admin (before the body is looked at)', async () => {
      const bob = await createUser();
      const carol = await createUser();
      expect(
        (await server.request.post(`/api/admin/users/${bob.user.username}/suspend`).send({ reason: 'x' })).status,
      ).toBe(401);
      expect((await server.request.delete(`/api/admin/users/${bob.user.username}/suspend`)).status).toBe(401);
      const notAdmin = await suspend(bob, {}, carol);
      expect(notAdmin.status).toBe(403);
      expect(notAdmin.body.code).toBe('ADMIN_REQUIRED');
      expect(
        (await server.request.delete(`/api/admin/users/${bob.user.username}/suspend`).set('Authorization', carol.auth))
          .status,
      ).toBe(403);
    });

    it('400 VALIDATION_ERROR for a missing, blank or long reason and an until that is not a future timestamp (before the 404)', async () => {
      for (const body of [
        {},
        { reason: '   ' },
        { reason: 'x'.repeat(501) },
        { reason: 'x', until: 'tomorrow' },
        { reason: 'x', until: '2001-01-01T00:00:00Z' },
      ]) {
        const res = await suspend('nobody_by_that_name', body);
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('VALIDATION_ERROR');
        expect(res.body.details[0].field).toBe(
          'reason' in body && (body as { reason: string }).reason.trim().length === 1 ? 'until' : 'reason',
        );
      }
    });

    it('404 for an unknown username, 400 SUSPEND_SELF for oneself, 403 ADMIN_NOT_SUSPENDABLE for another admin', async () => {
      const unknown = await suspend('nobody_by_that_name', { reason: 'x' });
      expect(unknown.status).toBe(404);
      expect(unknown.body.code).toBe('USER_NOT_FOUND');
      expect(
        (await server.request.delete('/api/admin/users/nobody_by_that_name/suspend').set('Authorization', admin.auth))
          .status,
      ).toBe(404);
      expect((await suspend(admin, { reason: 'x' })).body).toEqual({
        success: false,
        error: 'You cannot suspend yourself',
        code: 'SUSPEND_SELF',
      });
      const other = await createAdmin();
      expect((await suspend(other, { reason: 'x' })).body).toEqual({
        success: false,
        error: 'Admins cannot be suspended',
        code: 'ADMIN_NOT_SUSPENDABLE',
      });
      const rows = await prisma.user.findMany({ where: { id: { in: [admin.user.id, other.user.id] } } });
      expect(rows.every((r) => r.suspendedAt === null && r.tokenVersion === 0)).toBe(true);
    });
  });
});

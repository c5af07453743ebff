import { prisma } from '../helpers/db';
import { createAdmin, createUser } from '../helpers/factories';
import { api } from '../helpers/server';

/**
 * The caller is read from the database on every request (src/lib/auth.ts): no cache may keep
 * serving a user that was deleted or demoted. Each test warms the path first, then changes
 * the row behind the service's back and asserts the very next request.
 */
describe('authorization is read fresh on every request', () => {
  it('GET /api/events answers 401 INVALID_TOKEN on the request after the user is deleted', async () => {
    const me = await createUser();
    await api().get('/api/events').set('Authorization', me.auth).expect(200);
    await prisma.user.delete({ where: { id: me.user.id } });
    const res = await api().get('/api/events').set('Authorization', me.auth);
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ success: false, code: 'INVALID_TOKEN' });
  });

  it('GET /api/dashboard answers 401 on the request after the user is deleted', async () => {
    const me = await createUser();
    await api().get('/api/dashboard').set('Authorization', me.auth).expect(200);
    await prisma.user.delete({ where: { id: me.user.id } });
    expect((await api().get('/api/dashboard').set('Authorization', me.auth)).status).toBe(401);
  });

  it('an admin demoted in the database gets 403 ADMIN_REQUIRED on the next admin request', async () => {
    const admin = await createAdmin();
    await api().get('/api/admin/activity-logs').set('Authorization', admin.auth).expect(200);
    await prisma.user.update({ where: { id: admin.user.id }, data: { isAdmin: false } });
    const res = await api().get('/api/admin/activity-logs').set('Authorization', admin.auth);
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ success: false, code: 'ADMIN_REQUIRED' });
  });

  it('a user promoted in the database reaches admin routes on the next request', async () => {
    const user = await createUser();
    await api().get('/api/admin/activity-logs').set('Authorization', user.auth).expect(403);
    await prisma.user.update({ where: { id: user.user.id }, data: { isAdmin: true } });
    await api().get('/api/admin/activity-logs').set('Authorization', user.auth).expect(200);
  });
});

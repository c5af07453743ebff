import { testContainer } from '../helpers/container';
import { createAdmin, unique } from '../helpers/factories';
import { api } from '../helpers/server';

/** Filters of GET /admin/activity-logs: literal usernames and dates the database can hold. */
describe('GET /admin/activity-logs filters', () => {
  const logActivity = ({ username, ...activity }: { category: 'auth'; action: string; username: string }) =>
    testContainer().audit.record({ user: null, userId: null, username, ip: null, method: null, path: null }, activity);
  const list = async (query: Record<string, string>) => {
    const admin = await createAdmin();
    return api().get('/api/admin/activity-logs').query(query).set('Authorization', admin.auth);
  };

  it.each(['%', '_', '%%', 'a%', '\\'])(
    'username=%s matches only that literal name, not every entry',
    async (pattern) => {
      const action = unique('lit_');
      await logActivity({ category: 'auth', action, username: unique('Someone_') });
      await logActivity({ category: 'auth', action, username: 'a' });
      const res = await list({ action, username: pattern });
      expect(res.status).toBe(200);
      expect(res.body.pagination.total).toBe(0);
    },
  );

  it('username with % or _ matches the entry written with exactly that name, ignoring case', async () => {
    const action = unique('lit_');
    const name = `${unique('odd')}_%\\x`;
    await logActivity({ category: 'auth', action, username: name });
    await logActivity({ category: 'auth', action, username: name.replace('_%', 'ab') });
    const res = await list({ action, username: name.toUpperCase() });
    expect(res.body.pagination.total).toBe(1);
    expect(res.body.data[0].username).toBe(name);
  });

  it.each([
    ['from', '0000-01-01'],
    ['to', '0000-01-01'],
    ['from', '9999-12-31T23:59:59-14:00'],
    ['to', '+275760-09-13T00:00:00Z'],
    ['from', '1899-12-31'],
  ])('%s=%s answers 400 "Validation failed" with details', async (field, value) => {
    const res = await list({ [field]: value });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'Validation failed', code: 'VALIDATION_ERROR', details: [{ field }] });
  });

  it('from=1900-01-01 and to=9999-12-31 are accepted', async () => {
    const res = await list({ from: '1900-01-01', to: '9999-12-31' });
    expect(res.status).toBe(200);
  });
});

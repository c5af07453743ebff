import type { Container } from '../../src/container';
import { testConfig, withTestContainer } from '../helpers/container';
import { prisma } from '../helpers/db';
import { createUser, unique, type TestUser } from '../helpers/factories';
import { api } from '../helpers/server';

/**
 * Current-password guessing (docs/security-hardening.md): a wrong `currentPassword` on
 * PATCH /users/me/password and on an e-mail change is a failed login attempt (same counter,
 * LOCKOUT_MAX_ATTEMPTS = 5 in the tests' configuration); the attempt that reaches the maximum
 * answers 423, and while locked both routes (and login) answer 423 whatever the password.
 */

const changePassword = (u: TestUser, currentPassword: string, c?: Container) =>
  api(c)
    .patch('/api/users/me/password')
    .set('Authorization', u.auth)
    .send({ currentPassword, newPassword: 'brand-new-pw' });
const changeEmail = (u: TestUser, currentPassword: string, c?: Container) =>
  api(c)
    .patch('/api/users/me')
    .set('Authorization', u.auth)
    .send({ email: `${unique('new_')}@example.test`, currentPassword });
const login = (u: TestUser, password: string) => api().post('/api/auth/login').send({ email: u.user.email, password });

function expectLocked(res: { status: number; body: Record<string, unknown>; headers: Record<string, string> }) {
  expect(res.status).toBe(423);
  expect(res.body).toMatchObject({ success: false, code: 'ACCOUNT_LOCKED' });
  expect(res.body.error).toMatch(/^Account is locked\. Try again in \d+ minute\(s\)\.$/);
  expect(res.body.retryAfter).toBeGreaterThan(0);
  expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
}

describe.each([
  ['PATCH /users/me/password', changePassword],
  ['an e-mail change (PATCH /users/me)', changeEmail],
])('%s', (_name, attempt) => {
  it('answers 400 "Current password is incorrect" below the maximum and 423 on the attempt that reaches it', async () => {
    const me = await createUser();
    const { maxAttempts } = testConfig().lockout;
    for (let i = 1; i < maxAttempts; i++) {
      const res = await attempt(me, `wrong-${i}`);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'WRONG_PASSWORD', error: 'Current password is incorrect' });
    }
    expectLocked(await attempt(me, 'wrong-last'));
    const row = await prisma.user.findUniqueOrThrow({ where: { id: me.user.id } });
    expect(row.failedLoginAttempts).toBe(maxAttempts);
    expect(row.lockedUntil!.getTime()).toBeGreaterThan(Date.now());
    expect(
      await prisma.activityLog.count({ where: { userId: me.user.id, action: 'account_locked', success: false } }),
    ).toBe(1);
  });

  it('then answers 423 to the right password too, changes nothing, and login answers 423', async () => {
    const me = await createUser();
    for (let i = 0; i < testConfig().lockout.maxAttempts; i++) await attempt(me, 'wrong');
    const before = await prisma.user.findUniqueOrThrow({ where: { id: me.user.id } });
    expectLocked(await attempt(me, me.password));
    const after = await prisma.user.findUniqueOrThrow({ where: { id: me.user.id } });
    expect({ email: after.email, passwordHash: after.passwordHash }).toEqual({
      email: before.email,
      passwordHash: before.passwordHash,
    });
    expectLocked(await login(me, me.password));
  });

  it('counts in the same counter as the login: wrong logins and wrong current passwords lock together', async () => {
    const me = await createUser();
    const { maxAttempts } = testConfig().lockout;
    for (let i = 1; i < maxAttempts; i++) expect((await login(me, 'wrong')).status).toBe(401);
    expectLocked(await attempt(me, 'wrong'));
  });

  it('resets the counter with the right current password', async () => {
    const me = await createUser();
    await attempt(me, 'wrong');
    await attempt(me, 'wrong');
    expect((await prisma.user.findUniqueOrThrow({ where: { id: me.user.id } })).failedLoginAttempts).toBe(2);
    expect((await attempt(me, me.password)).status).toBe(200);
    expect((await prisma.user.findUniqueOrThrow({ where: { id: me.user.id } })).failedLoginAttempts).toBe(0);
  });
});

it('sixty wrong current passwords in parallel lock the account; the right one afterwards answers 423', async () => {
  const me = await createUser();
  const results = await Promise.all(Array.from({ length: 60 }, (_, i) => changePassword(me, `guess-${i}`)));
  const statuses = results.map((r) => r.status);
  expect(statuses.every((s) => [400, 423, 503].includes(s))).toBe(true);
  expect(statuses.filter((s) => s === 400).length).toBeLessThan(testConfig().lockout.maxAttempts);
  expect(statuses).toContain(423);
  expectLocked(await changePassword(me, me.password));
});

it('ten right current passwords at once never lock the account', async () => {
  const me = await createUser();
  const results = await Promise.all(Array.from({ length: 10 }, () => changeEmail(me, me.password)));
  expect(results.every((r) => r.status === 200 || r.status === 503)).toBe(true);
  expect((await prisma.user.findUniqueOrThrow({ where: { id: me.user.id } })).lockedUntil).toBeNull();
});

it('with rate limits on, both routes are under the authentication tier (429 RATE_LIMITED)', async () => {
  const base = testConfig().rateLimit;
  const me = await createUser();
  const statuses = await withTestContainer(
    {
      rateLimit: {
        enabled: true,
        auth: { ...base.auth, max: 2 },
        general: { ...base.general, max: 100_000 },
        email: { ...base.email, max: 100_000 },
      },
    },
    async (c) => [
      (await changePassword(me, 'wrong', c)).status,
      (await changeEmail(me, 'wrong', c)).status,
      (await changePassword(me, 'wrong', c)).status,
      (await changeEmail(me, 'wrong', c)).status,
    ],
  );
  expect(statuses).toEqual([400, 400, 429, 429]);
});

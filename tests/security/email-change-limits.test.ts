import type { Container } from '../../src/container';
import { testConfig, withTestContainer } from '../helpers/container';
import { prisma } from '../helpers/db';
import { createUser, unique, type TestUser } from '../helpers/factories';
import { api } from '../helpers/server';

/**
 * E-mail changes (docs/security-hardening.md), with RATE_LIMIT_ENABLED=true: they count in the
 * e-mail tier (per IP, shared with resend, reset request and registry lookup), and per account at
 * most EMAIL_CHANGE_MAX (3) go through in a rolling EMAIL_CHANGE_WINDOW_SECONDS (86400).
 */

const DAY = 24 * 60 * 60;

/** A container with rate limits on: the e-mail tier and the per-account cap as given, the other tiers out of the way. */
function limited<T>(limits: { emailTier?: number; perAccount?: number }, fn: (c: Container) => Promise<T>): Promise<T> {
  const base = testConfig().rateLimit;
  return withTestContainer(
    {
      rateLimit: {
        enabled: true,
        general: { ...base.general, max: 100_000 },
        auth: { ...base.auth, max: 100_000 },
        email: { ...base.email, max: limits.emailTier ?? 100_000 },
      },
      emailChange: { max: limits.perAccount ?? 1000, windowSeconds: DAY },
    },
    fn,
  );
}

const changeEmail = (
  c: Container,
  u: TestUser,
  email = `${unique('to_')}@example.test`,
  currentPassword = u.password,
) => api(c).patch('/api/users/me').set('Authorization', u.auth).send({ email, currentPassword });

const queuedMails = async (userId: number) => {
  const [row] = await prisma.$queryRawUnsafe<Array<{ n: number }>>(
    `SELECT count(*)::int AS n FROM pgboss.job WHERE name = $1 AND (data->>'userId')::int = $2`,
    testConfig().mailQueue.name,
    userId,
  );
  return row.n;
};

describe('the e-mail tier', () => {
  it('refuses alternating e-mail changes past the tier with 429 RATE_LIMITED and Retry-After', async () => {
    const me = await createUser();
    const a = `${unique('a_')}@example.test`;
    const b = `${unique('b_')}@example.test`;
    const answers = await limited({ emailTier: 2 }, async (c) => [
      await changeEmail(c, me, a),
      await changeEmail(c, me, b),
      await changeEmail(c, me, a),
    ]);
    expect(answers.map((r) => r.status)).toEqual([200, 200, 429]);
    expect(answers[2].body).toMatchObject({
      success: false,
      code: 'RATE_LIMITED',
      error: 'Too many e-mail requests, please try again later',
    });
    expect(Number(answers[2].headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect((await prisma.user.findUniqueOrThrow({ where: { id: me.user.id } })).email).toBe(b);
  });

  it('shares the tier with resend and reset requests, and does not count other profile updates', async () => {
    const me = await createUser();
    const statuses = await limited({ emailTier: 2 }, async (c) => {
      const out: number[] = [];
      for (let i = 0; i < 5; i++)
        out.push(
          (
            await api(c)
              .patch('/api/users/me')
              .set('Authorization', me.auth)
              .send({ firstName: `Name${i}`, email: me.user.email })
          ).status,
        );
      out.push((await api(c).post('/api/auth/request-password-reset').send({ email: 'nobody@example.test' })).status);
      out.push((await changeEmail(c, me)).status);
      out.push((await changeEmail(c, me)).status);
      return out;
    });
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 200, 429]);
  });
});

describe('the per-account cap', () => {
  it('lets 3 e-mail changes through and refuses the 4th with 429 EMAIL_CHANGE_LIMITED, writing nothing and queuing no mail', async () => {
    const me = await createUser();
    await limited({ perAccount: 3 }, async (c) => {
      for (let i = 0; i < 3; i++) expect((await changeEmail(c, me)).status).toBe(200);
      const before = await prisma.user.findUniqueOrThrow({ where: { id: me.user.id } });
      const mailsBefore = await queuedMails(me.user.id);
      const refused = await changeEmail(c, me);
      expect(refused.status).toBe(429);
      expect(refused.body).toMatchObject({
        success: false,
        code: 'EMAIL_CHANGE_LIMITED',
        error: 'Too many e-mail changes, please try again later',
      });
      const retryAfter = Number(refused.headers['retry-after']);
      expect(retryAfter).toBeGreaterThan(DAY - 600);
      expect(retryAfter).toBeLessThanOrEqual(DAY);
      expect(await prisma.user.findUniqueOrThrow({ where: { id: me.user.id } })).toEqual(before);
      expect(await queuedMails(me.user.id)).toBe(mailsBefore);
      expect(await prisma.emailChange.count({ where: { userId: me.user.id } })).toBe(3);
      const audit = await prisma.activityLog.findFirst({
        where: { userId: me.user.id, action: 'email_change', success: false },
      });
      expect(audit?.metadata).toMatchObject({ reason: 'limit' });
    });
  });

  it('answers Retry-After = seconds until the oldest counted change leaves the rolling window', async () => {
    const me = await createUser();
    const ago = (seconds: number) => new Date(Date.now() - seconds * 1000);
    await prisma.emailChange.createMany({
      data: [
        { userId: me.user.id, createdAt: ago(DAY + 60) }, // outside the window: not counted
        { userId: me.user.id, createdAt: ago(DAY - 3600) },
        { userId: me.user.id, createdAt: ago(600) },
        { userId: me.user.id, createdAt: ago(60) },
      ],
    });
    const res = await limited({ perAccount: 3 }, (c) => changeEmail(c, me));
    expect(res.status).toBe(429);
    expect(res.body.code).toBe('EMAIL_CHANGE_LIMITED');
    const retryAfter = Number(res.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(3500);
    expect(retryAfter).toBeLessThanOrEqual(3600);
  });

  it('checks the current password first: a wrong one at the cap answers 400 WRONG_PASSWORD', async () => {
    const me = await createUser();
    await prisma.emailChange.createMany({ data: [1, 2, 3].map(() => ({ userId: me.user.id })) });
    const res = await limited({ perAccount: 3 }, (c) => changeEmail(c, me, undefined, 'not-my-password'));
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('WRONG_PASSWORD');
  });

  it('lets at most 3 of 8 parallel e-mail changes through', async () => {
    const me = await createUser();
    const statuses = await limited({ perAccount: 3 }, async (c) =>
      (await Promise.all(Array.from({ length: 8 }, () => changeEmail(c, me)))).map((r) => r.status),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(3);
    expect(statuses.filter((s) => s === 429)).toHaveLength(5);
    expect(await prisma.emailChange.count({ where: { userId: me.user.id } })).toBe(3);
  });

  it("is off with RATE_LIMIT_ENABLED=false (the tests' configuration)", async () => {
    const me = await createUser();
    for (let i = 0; i < 5; i++) {
      const res = await api()
        .patch('/api/users/me')
        .set('Authorization', me.auth)
        .send({ email: `${unique('free_')}@example.test`, currentPassword: me.password });
      expect(res.status).toBe(200);
    }
  });
});

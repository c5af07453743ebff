import type { Container } from '../../src/container';
import { testConfig, useTestContainer, withTestContainer } from '../helpers/container';
import { createUser } from '../helpers/factories';
import { api } from '../helpers/server';

/**
 * The test env switches CSRF and rate limiting off: these tests build containers with them on.
 */
const cookieHeader = (setCookie: string[] | string | undefined) =>
  (Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : []).map((c) => c.split(';')[0]).join('; ');

describe('CSRF protection (CSRF_ENABLED)', () => {
  useTestContainer({ csrf: { ...testConfig().csrf, enabled: true } });

  async function freshToken() {
    const res = await api().get('/api/csrf-token');
    expect(res.status).toBe(200);
    expect(typeof res.body.data.csrfToken).toBe('string');
    const cookies = cookieHeader(res.headers['set-cookie']);
    expect(cookies).toContain('wcs.x-csrf-token=');
    expect(cookies).toContain('wcs.csrf-client=');
    return { token: res.body.data.csrfToken as string, cookies };
  }

  it('refuses POST, PATCH and DELETE without the token with 403 "Invalid CSRF token"', async () => {
    const { auth } = await createUser();
    const responses = [
      await api().post('/api/auth/login').send({ email: 'a@example.test', password: 'x' }),
      await api().post('/api/auth/register').send({}),
      await api().patch('/api/users/me').set('Authorization', auth).send({ city: 'X' }),
      await api().delete('/api/events/whatever/leave').set('Authorization', auth),
    ];
    for (const res of responses) {
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ success: false, error: 'Invalid CSRF token', code: 'CSRF_INVALID' });
    }
  });

  it('accepts the header X-CSRF-Token together with the cookies from GET /csrf-token', async () => {
    const { token, cookies } = await freshToken();
    const { user, password, auth } = await createUser();
    const login = await api()
      .post('/api/auth/login')
      .set('Cookie', cookies)
      .set('X-CSRF-Token', token)
      .send({ email: user.email, password });
    expect(login.status).toBe(200);
    const patch = await api()
      .patch('/api/users/me')
      .set('Authorization', auth)
      .set('Cookie', cookies)
      .set('X-CSRF-Token', token)
      .send({ city: 'Lyon' });
    expect(patch.status).toBe(200);
  });

  it("refuses a token without its cookies, with another client's cookies, or a tampered token", async () => {
    const a = await freshToken();
    const b = await freshToken();
    const body = { email: 'nobody@example.test', password: 'x' };
    const noCookie = await api().post('/api/auth/login').set('X-CSRF-Token', a.token).send(body);
    const crossed = await api()
      .post('/api/auth/login')
      .set('Cookie', b.cookies)
      .set('X-CSRF-Token', a.token)
      .send(body);
    const tampered = await api()
      .post('/api/auth/login')
      .set('Cookie', a.cookies)
      .set('X-CSRF-Token', `${a.token.slice(0, -2)}00`)
      .send(body);
    for (const res of [noCookie, crossed, tampered]) expect(res.status).toBe(403);
  });

  it('reuses the token for the same client and leaves GET requests alone', async () => {
    const first = await freshToken();
    const again = await api().get('/api/csrf-token').set('Cookie', first.cookies);
    expect(again.body.data.csrfToken).toBe(first.token);
    expect((await api().get('/api/health')).status).toBe(200);
  });

  it('is off when CSRF_ENABLED is false', async () => {
    const res = await withTestContainer({ csrf: { ...testConfig().csrf, enabled: false } }, (c) =>
      api(c).post('/api/auth/login').send({ email: 'nobody@example.test', password: 'x' }),
    );
    expect(res.status).toBe(401);
  });
});

describe('rate limiting (RATE_LIMIT_ENABLED)', () => {
  /** A container whose limits are on, with the given maximum per tier (others 100 000). */
  const limited = <T>(max: { general?: number; auth?: number; email?: number }, fn: (c: Container) => Promise<T>) => {
    const base = testConfig().rateLimit;
    const tier = (name: 'general' | 'auth' | 'email') => ({ ...base[name], max: max[name] ?? 100_000 });
    return withTestContainer(
      { rateLimit: { enabled: true, general: tier('general'), auth: tier('auth'), email: tier('email') } },
      fn,
    );
  };

  it('general tier: answers 429 in the error envelope with RateLimit headers beyond the limit', async () => {
    await limited({ general: 3 }, async (c) => {
      for (let i = 0; i < 3; i++) {
        const ok = await api(c).get('/api/health');
        expect(ok.status).toBe(200);
        expect(ok.headers.ratelimit).toMatch(/limit=3, remaining=\d+, reset=\d+/);
        expect(ok.headers['ratelimit-policy']).toBeDefined();
      }
      const refused = await api(c).get('/api/health');
      expect(refused.status).toBe(429);
      expect(refused.body).toMatchObject({ success: false, code: 'RATE_LIMITED' });
      expect(typeof refused.body.error).toBe('string');
      expect(refused.headers.ratelimit).toMatch(/remaining=0/);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    });
  });

  it('auth tier limits login and register together', async () => {
    const statuses = await limited({ auth: 3 }, async (c) => [
      (await api(c).post('/api/auth/login').send({ email: 'nobody@example.test', password: 'x' })).status,
      (await api(c).post('/api/auth/register').send({})).status,
      (await api(c).post('/api/auth/login').send({ email: 'nobody@example.test', password: 'x' })).status,
      (await api(c).post('/api/auth/register').send({})).status,
      (await api(c).post('/api/auth/login').send({ email: 'nobody@example.test', password: 'x' })).status,
    ]);
    expect(statuses).toEqual([401, 400, 401, 429, 429]);
  });

  it('e-mail tier limits resend, reset request and registry lookup together', async () => {
    const statuses = await limited({ email: 2 }, async (c) => [
      (await api(c).post('/api/auth/resend-verification').send({ email: 'nobody@example.test' })).status,
      (await api(c).post('/api/auth/request-password-reset').send({ email: 'nobody@example.test' })).status,
      (await api(c).get('/api/registry/lookup').query({ id: 'bad' })).status,
      (await api(c).post('/api/auth/resend-verification').send({ email: 'nobody@example.test' })).status,
    ]);
    expect(statuses).toEqual([200, 200, 429, 429]);
  });

  it('does not limit when RATE_LIMIT_ENABLED is false', async () => {
    // the test configuration: RATE_LIMIT_ENABLED=false, default limits (e-mail tier: 5 an hour)
    const c = testConfig();
    expect(c.rateLimit.enabled).toBe(false);
    for (let i = 0; i < 7; i++) {
      expect((await api().post('/api/auth/resend-verification').send({ email: 'nobody@example.test' })).status).toBe(
        200,
      );
    }
  });
});

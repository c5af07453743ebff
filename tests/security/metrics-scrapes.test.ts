import type { Container } from '../../src/container';
import { testConfig, withTestContainer } from '../helpers/container';
import { api } from '../helpers/server';

/**
 * Failed metrics scrapes (docs/security-hardening.md), with RATE_LIMIT_ENABLED=true: 401s of
 * GET /api/metrics count per IP in a counter of their own with the auth tier's numbers (here 3);
 * past them every scrape from that IP gets 429 until the window frees. Successful ones never count.
 */
const TOKEN = 'a-metrics-token-of-32-characters';

function limited<T>(fn: (c: Container) => Promise<T>): Promise<T> {
  const base = testConfig().rateLimit;
  return withTestContainer(
    {
      metrics: { token: TOKEN },
      rateLimit: {
        enabled: true,
        auth: { ...base.auth, max: 3 },
        general: { ...base.general, max: 100_000 },
        email: { ...base.email, max: 100_000 },
      },
    },
    fn,
  );
}
const scrape = (c: Container, token: string) => api(c).get('/api/metrics').set('Authorization', `Bearer ${token}`);

it("answers 429 RATE_LIMITED with Retry-After to the failure past the auth tier's maximum, and then to the right token too", async () => {
  const answers = await limited(async (c) => {
    const out = [];
    for (let i = 0; i < 4; i++) out.push(await scrape(c, `wrong-token-${i}`));
    out.push(await scrape(c, TOKEN));
    return out;
  });
  expect(answers.map((r) => r.status)).toEqual([401, 401, 401, 429, 429]);
  expect(answers[3].body).toMatchObject({ success: false, code: 'RATE_LIMITED' });
  expect(Number(answers[3].headers['retry-after'])).toBeGreaterThanOrEqual(1);
});

it('never counts successful scrapes: a scraper far beyond the maximum stays at 200', async () => {
  const statuses = await limited(async (c) => {
    const out: number[] = [];
    for (let i = 0; i < 10; i++) out.push((await scrape(c, TOKEN)).status);
    out.push((await scrape(c, 'wrong')).status);
    return out;
  });
  expect(statuses).toEqual([...Array(10).fill(200), 401]);
});

it('keeps its own counter: failed scrapes do not use up the logins of the auth tier', async () => {
  const statuses = await limited(async (c) => {
    for (let i = 0; i < 4; i++) await scrape(c, 'wrong');
    return [(await api(c).post('/api/auth/login').send({ email: 'nobody@example.test', password: 'x' })).status];
  });
  expect(statuses).toEqual([401]);
});

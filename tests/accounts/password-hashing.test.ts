import { AppError } from '../../src/lib/errors';
import { PasswordHasher } from '../../src/lib/password-hasher';
import { createTestContainer } from '../helpers/container';
import { prisma } from '../helpers/db';
import { unique } from '../helpers/factories';
import { api } from '../helpers/server';

const ghostLogin = () => ({ email: `${unique('ghost')}@example.test`, password: 'whatever1' });

describe('PasswordHasher', () => {
  it('runs at most `concurrency` computations, queues up to `maxQueued` and refuses the rest with 503 and Retry-After', async () => {
    const hasher = new PasswordHasher({ rounds: 4, concurrency: 1, maxQueued: 2, retryAfterSeconds: 3 });
    const hash = await hasher.hash('secret123');
    const results = await Promise.allSettled(Array.from({ length: 5 }, () => hasher.compare('secret123', hash)));
    expect(
      results.filter((r) => r.status === 'fulfilled').map((r) => (r as PromiseFulfilledResult<boolean>).value),
    ).toEqual([true, true, true]);
    const refused = results
      .filter((r) => r.status === 'rejected')
      .map((r) => (r as PromiseRejectedResult).reason as AppError);
    expect(refused).toHaveLength(2);
    for (const err of refused) {
      expect(err).toBeInstanceOf(AppError);
      expect(err).toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503, headers: { 'Retry-After': '3' } });
    }
    expect(hasher.load).toEqual({ active: 0, queued: 0 });
  });

  it('hands a freed slot to the oldest waiting computation', async () => {
    const hasher = new PasswordHasher({ rounds: 4, concurrency: 1, maxQueued: 10, retryAfterSeconds: 1 });
    const order: number[] = [];
    await Promise.all(Array.from({ length: 4 }, (_, i) => hasher.hash(`pw${i}`).then(() => order.push(i))));
    expect(order).toEqual([0, 1, 2, 3]);
  });
});

describe('logins and bounded hashing', () => {
  it('POST /auth/login answers 503 with Retry-After once the hashing queue is full, never 500', async () => {
    const hasher = new PasswordHasher({ rounds: 4, concurrency: 1, maxQueued: 2, retryAfterSeconds: 2 });
    const container = createTestContainer({}, { passwordHasher: hasher });
    try {
      await hasher.compareWithDummy('warm-up'); // the dummy hash exists: each login is one comparison
      const results = await Promise.all(
        Array.from({ length: 12 }, () => api(container).post('/api/auth/login').send(ghostLogin())),
      );
      const statuses = results.map((r) => r.status);
      expect(statuses.every((s) => s === 401 || s === 503)).toBe(true);
      const unavailable = results.filter((r) => r.status === 503);
      expect(unavailable.length).toBeGreaterThan(0);
      for (const r of unavailable) {
        expect(r.headers['retry-after']).toBe('2');
        expect(r.body).toMatchObject({ success: false, code: 'SERVICE_UNAVAILABLE' });
      }
    } finally {
      await container.close();
    }
  });

  it('GET /api/health answers while 60 logins with unknown e-mails still wait for hashing', async () => {
    // a real cost, so that the 60 comparisons take long enough to be still queued
    const container = createTestContainer({ bcryptRounds: 10 });
    try {
      await container.passwordHasher.compareWithDummy('warm-up');
      let loginsDone = 0;
      const logins = Array.from({ length: 60 }, () =>
        api(container)
          .post('/api/auth/login')
          .send(ghostLogin())
          .then((r) => {
            loginsDone++;
            return r.status;
          }),
      );
      while (container.passwordHasher.load.queued === 0) await new Promise((resolve) => setImmediate(resolve));
      const health = await api(container).get('/api/health');
      const stillWaiting = container.passwordHasher.load;
      const doneWhenHealthAnswered = loginsDone;
      expect(health.status).toBe(200);
      expect(doneWhenHealthAnswered).toBeLessThan(60);
      expect(stillWaiting.active + stillWaiting.queued).toBeGreaterThan(0);
      expect(new Set(await Promise.all(logins))).toEqual(new Set([401]));
    } finally {
      await container.close();
    }
  });
});

describe('failed e-mail verifications in the activity log', () => {
  it("200 anonymous GET /auth/verify-email?token=x from one address write one activity-log row; the next minute's row counts them", async () => {
    let offsetMs = 0;
    const container = createTestContainer({}, { clock: { now: () => new Date(Date.now() + offsetMs) } });
    const since = new Date();
    try {
      const results = [];
      for (let i = 0; i < 200; i += 20) {
        results.push(
          ...(await Promise.all(
            Array.from({ length: 20 }, () => api(container).get('/api/auth/verify-email?token=x')),
          )),
        );
      }
      expect(results.every((r) => r.status === 400 && r.body.code === 'INVALID_VERIFICATION_TOKEN')).toBe(true);
      const rows = await prisma.activityLog.findMany({
        where: { action: 'email_verify', success: false, createdAt: { gte: since } },
      });
      expect(rows).toHaveLength(1);
      expect(rows[0].metadata).toEqual({ method: 'link', failures: 1 });
      offsetMs = 61_000;
      expect((await api(container).get('/api/auth/verify-email?token=y')).status).toBe(400);
      const later = await prisma.activityLog.findMany({
        where: { action: 'email_verify', success: false, createdAt: { gte: since } },
        orderBy: { id: 'asc' },
      });
      expect(later.map((r) => r.metadata)).toEqual([
        { method: 'link', failures: 1 },
        { method: 'link', failures: 200 },
      ]);
    } finally {
      await container.close();
    }
  });
});

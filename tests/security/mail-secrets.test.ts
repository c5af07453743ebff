import { testConfig, testContainer, useTestContainer } from '../helpers/container';
import { prisma } from '../helpers/db';
import { createUser, unique } from '../helpers/factories';
import { api } from '../helpers/server';
import { until } from '../helpers/server-process';
import { captureSmtp, codeFromMail, startSmtpCapture, tokenFromLink, type SmtpCapture } from '../helpers/smtp';

/**
 * Secrets of mails at rest (docs/security-hardening.md): the mail queue (schema `pgboss`) holds
 * references, never a verification link, code or reset token, neither while SMTP refuses the
 * mail nor after; the secrets are created when the mail is sent, and a sent mail's job is deleted.
 */

let smtp: SmtpCapture;
beforeAll(async () => {
  smtp = await startSmtpCapture();
});
useTestContainer(() => ({
  smtp: captureSmtp(smtp),
  mailQueue: { retryLimit: 20, retryDelaySeconds: 1, pollingIntervalSeconds: 1 },
}));
beforeAll(async () => {
  await testContainer().mailQueue.startWorker();
});
afterAll(async () => {
  await smtp.close();
});
afterEach(() => smtp.setDown(false));

interface JobRow {
  id: string;
  state: string;
  data: Record<string, unknown>;
}

const jobsOf = (userId: number): Promise<JobRow[]> =>
  prisma.$queryRawUnsafe(
    `SELECT id::text, state, data FROM pgboss.job WHERE name = $1 AND (data->>'userId')::int = $2 ORDER BY data->>'kind' DESC`,
    testConfig().mailQueue.name,
    userId,
  );

/** How many rows of any table of the schema `pgboss` hold `text` anywhere (every column, as text). */
async function rowsInQueueHolding(text: string): Promise<number> {
  const tables = await prisma.$queryRawUnsafe<Array<{ table_name: string }>>(
    `SELECT table_name FROM information_schema.tables WHERE table_schema = 'pgboss' AND table_type = 'BASE TABLE'`,
  );
  let total = 0;
  for (const { table_name } of tables) {
    const [row] = await prisma.$queryRawUnsafe<Array<{ n: number }>>(
      `SELECT count(*)::int AS n FROM pgboss."${table_name}" t WHERE t::text LIKE '%' || $1 || '%'`,
      text,
    );
    total += row.n;
  }
  return total;
}

/** Waits until the worker tried the user's mails and SMTP refused them (they wait for a retry). */
const refusedOnce = (userId: number) => until(async () => (await jobsOf(userId)).some((j) => j.state === 'retry'));

describe('the mail queue holds no secret', () => {
  it('keeps only { kind, userId, newEmail } for a verification mail while SMTP refuses it', async () => {
    smtp.setDown(true);
    const username = unique('atrest_');
    const email = `${username}@example.test`;
    const res = await api().post('/api/auth/register').send({ username, email, password: 'secret123' });
    expect(res.status).toBe(201);
    const userId = res.body.data.user.id as number;
    await refusedOnce(userId);
    const jobs = await jobsOf(userId);
    expect(jobs.map((j) => j.data)).toEqual([{ kind: 'verification', userId, newEmail: email }]);
    expect(await rowsInQueueHolding('verify-email?token=')).toBe(0);
  }, 60_000);

  it('creates the link and code when the mail is sent: they work, no table of the queue holds them, and the sent job is deleted', async () => {
    smtp.setDown(true);
    const username = unique('atrest_');
    const email = `${username}@example.test`;
    const res = await api().post('/api/auth/register').send({ username, email, password: 'secret123' });
    const userId = res.body.data.user.id as number;
    await refusedOnce(userId);
    smtp.setDown(false);
    const mail = await smtp.mailTo(email, 30_000);
    const token = tokenFromLink(mail.text, '/verify-email');
    const code = codeFromMail(mail.text);
    await until(async () => (await jobsOf(userId)).length === 0);
    expect(await rowsInQueueHolding(token)).toBe(0);
    expect(await rowsInQueueHolding(`code in the app: ${code}`)).toBe(0);
    const [archived] = await prisma.$queryRawUnsafe<Array<{ n: number }>>(
      `SELECT count(*)::int AS n FROM pgboss.archive WHERE (data->>'userId')::int = $1`,
      userId,
    );
    expect(archived.n).toBe(0);
    // the code of the delivered mail works (the link would as well: both hashes were stored at sending)
    expect((await api().post('/api/auth/verify-code').send({ email, code })).status).toBe(200);
    expect((await prisma.user.findUniqueOrThrow({ where: { id: userId } })).emailVerified).toBe(true);
  }, 60_000);

  it('keeps only { kind, userId } for a reset mail; the token of the delivered mail resets the password', async () => {
    const { user } = await createUser();
    smtp.setDown(true);
    expect((await api().post('/api/auth/request-password-reset').send({ email: user.email })).status).toBe(200);
    await refusedOnce(user.id);
    expect((await jobsOf(user.id)).map((j) => j.data)).toEqual([{ kind: 'password_reset', userId: user.id }]);
    expect(await rowsInQueueHolding('reset-password?token=')).toBe(0);

    smtp.setDown(false);
    const mail = await smtp.mailTo(user.email, 30_000);
    const token = tokenFromLink(mail.text, '/reset-password');
    await until(async () => (await jobsOf(user.id)).length === 0);
    expect(await rowsInQueueHolding(token)).toBe(0);
    expect((await api().post('/api/auth/reset-password').send({ token, newPassword: 'brand-new-1' })).status).toBe(200);
  }, 60_000);

  it('queues references for an e-mail change (verification to the new address, notice to the old one); the old code stops working at once', async () => {
    const { user, auth, password } = await createUser({ emailVerified: false });
    await prisma.user.update({
      where: { id: user.id },
      data: {
        verificationCodeHash: 'a'.repeat(64),
        verificationTokenHash: 'b'.repeat(64),
        verificationExpiresAt: new Date(Date.now() + 3600_000),
      },
    });
    smtp.setDown(true);
    const newEmail = `${unique('moved_')}@example.test`;
    const res = await api()
      .patch('/api/users/me')
      .set('Authorization', auth)
      .send({ email: newEmail, currentPassword: password });
    expect(res.status).toBe(200);
    await refusedOnce(user.id);
    expect((await jobsOf(user.id)).map((j) => j.data)).toEqual([
      { kind: 'verification', userId: user.id, newEmail },
      { kind: 'email_changed', userId: user.id, previousEmail: user.email, newEmail },
    ]);
    const row = await prisma.user.findUniqueOrThrow({ where: { id: user.id } });
    expect(row.verificationCodeHash).not.toBe('a'.repeat(64));
    expect(row.verificationTokenHash).not.toBe('b'.repeat(64));

    smtp.setDown(false);
    const verification = await smtp.mailTo(newEmail, 30_000);
    const notice = await smtp.mailTo(user.email, 30_000);
    expect(notice.text).toContain(`changed to ${newEmail}`);
    await until(async () => (await jobsOf(user.id)).length === 0);
    expect(await rowsInQueueHolding(tokenFromLink(verification.text, '/verify-email'))).toBe(0);
    expect(
      (
        await api()
          .post('/api/auth/verify-code')
          .send({ email: newEmail, code: codeFromMail(verification.text) })
      ).status,
    ).toBe(200);
  }, 60_000);

  it('drops a verification that no longer applies (the address changed again before sending) without a mail', async () => {
    const { user, auth, password } = await createUser({ emailVerified: false });
    smtp.setDown(true);
    const first = `${unique('first_')}@example.test`;
    const second = `${unique('second_')}@example.test`;
    expect(
      (await api().patch('/api/users/me').set('Authorization', auth).send({ email: first, currentPassword: password }))
        .status,
    ).toBe(200);
    await refusedOnce(user.id);
    expect(
      (await api().patch('/api/users/me').set('Authorization', auth).send({ email: second, currentPassword: password }))
        .status,
    ).toBe(200);
    const verificationFor = (to: string) => async () =>
      (await jobsOf(user.id)).some((j) => j.data.kind === 'verification' && j.data.newEmail === to);
    // rendered again at its retry, the stale verification renders nothing and its job is deleted without an SMTP attempt
    await until(async () => !(await verificationFor(first)()));
    smtp.setDown(false);
    await smtp.mailTo(second, 30_000);
    await until(async () => (await jobsOf(user.id)).length === 0);
    expect(smtp.mails.filter((m) => m.to.includes(first)).map((m) => m.subject)).toEqual([
      'Your e-mail address was changed',
    ]);
  }, 60_000);
});

import type { Container } from '../../src/container';
import { accountMail } from '../../src/modules/auth/account-mails';
import { createTestContainer, testConfig, type ConfigOverrides } from '../helpers/container';
import { prisma } from '../helpers/db';
import { createUser, unique } from '../helpers/factories';
import { spawnServer, until, type ServerProcess } from '../helpers/server-process';
import { captureSmtp, startSmtpCapture, type SmtpCapture } from '../helpers/smtp';

/**
 * Issue 16, item 4: mail goes through a durable queue in PostgreSQL (pg-boss). A mail queued
 * while SMTP refuses is kept, survives a restart of the worker (a new container) and is
 * delivered once SMTP is back; the mails of a change that rolls back never exist.
 */
/** Jobs hold references (docs/security-hardening.md): the verification mails of these tests are for `newEmail`. */
async function jobsTo(to: string): Promise<Array<{ state: string }>> {
  return prisma.$queryRawUnsafe(
    `SELECT state FROM pgboss.job WHERE name = $1 AND data->>'newEmail' = $2`,
    testConfig().mailQueue.name,
    to,
  );
}

describe('durable mail queue', () => {
  let smtp: SmtpCapture;
  const containers: Container[] = [];
  const settings = (): ConfigOverrides => ({
    smtp: captureSmtp(smtp),
    mailQueue: { retryLimit: 10, retryDelaySeconds: 1, pollingIntervalSeconds: 1 },
  });
  const container = () => {
    const c = createTestContainer(settings());
    containers.push(c);
    return c;
  };

  beforeAll(async () => {
    smtp = await startSmtpCapture();
  });
  afterAll(async () => {
    for (const c of containers) await c.close();
    await smtp.close();
  });

  it('keeps a mail queued in the transaction of a user change through an SMTP outage and a restart, then delivers it', async () => {
    const { user } = await createUser({ emailVerified: false });
    smtp.setDown(true);
    const first = container();
    await first.mailQueue.transaction(first.prisma, async (tx) => {
      await tx.user.update({ where: { id: user.id }, data: { firstName: 'Queued' } });
      return { result: undefined, mails: [accountMail.verification(user.id, user.email)] };
    });
    await first.mailQueue.startWorker();
    await until(async () => smtp.refused > 0);
    // The worker process goes away while SMTP is still down: the mail is still there.
    await first.close();
    expect((await jobsTo(user.email)).map((j) => j.state)).toEqual([expect.stringMatching(/^(retry|created|failed)$/)]);

    smtp.setDown(false);
    const second = container();
    await second.mailQueue.startWorker();
    const mail = await smtp.mailTo(user.email, 60_000);
    expect(mail.subject).toBe('Verify your e-mail address');
    // a sent mail's job is deleted
    await until(async () => (await jobsTo(user.email)).length === 0);
    expect(smtp.mails.filter((m) => m.to.includes(user.email.toLowerCase()))).toHaveLength(1);
  }, 120_000);

  it('commits a change and its mails together or not at all: a mail the database refuses undoes the change and the mails before it', async () => {
    const { user } = await createUser({ firstName: 'Before' });
    const to = `${unique('rollback_')}@example.test`;
    const c = container();
    // PostgreSQL's jsonb cannot hold U+0000, so the second job's INSERT fails inside the transaction
    const refused = accountMail.verification(user.id, `a\u0000${unique('refused_')}@example.test`);
    await expect(
      c.mailQueue.transaction(c.prisma, async (tx) => {
        await tx.user.update({ where: { id: user.id }, data: { firstName: 'After' } });
        return { result: undefined, mails: [accountMail.verification(user.id, to), refused] };
      }),
    ).rejects.toThrow();
    expect(await jobsTo(to)).toEqual([]);
    expect((await prisma.user.findUniqueOrThrow({ where: { id: user.id } })).firstName).toBe('Before');
  });
});

describe('mail of the real server process', () => {
  let smtp: SmtpCapture;
  const servers: ServerProcess[] = [];
  const start = async () => {
    const server = await spawnServer({ SMTP_HOST: '127.0.0.1', SMTP_PORT: String(smtp.port) });
    servers.push(server);
    await server.waitForOutput(/listening on/);
    return server;
  };
  const register = async (server: ServerProcess) => {
    const username = unique('queued_');
    const email = `${username}@example.test`;
    const res = await fetch(`${server.url}/api/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username, email, password: 'secret123' }),
    });
    expect(res.status).toBe(201);
    return email;
  };
  /** the job was tried, refused, and waits for its retry (not in the middle of a send) */
  const waitingForRetry = (to: string) => until(async () => (await jobsTo(to))[0]?.state === 'retry');

  beforeAll(async () => {
    smtp = await startSmtpCapture();
  });
  afterAll(async () => {
    for (const s of servers) if (s.child.exitCode === null) s.child.kill('SIGKILL');
    await smtp.close();
  });

  it('keeps the verification mails of a stopped (SIGTERM) and of a crashed (SIGKILL) server while SMTP is down; the next server sends them', async () => {
    smtp.setDown(true);
    const stopped = await start();
    const first = await register(stopped);
    await waitingForRetry(first);
    stopped.child.kill('SIGTERM');
    expect(await stopped.exited).toEqual({ code: 0, signal: null });

    const crashed = await start();
    const second = await register(crashed);
    await waitingForRetry(second);
    crashed.child.kill('SIGKILL');
    await crashed.exited;

    smtp.setDown(false);
    await start();
    for (const to of [first, second]) {
      expect((await smtp.mailTo(to, 60_000)).subject).toBe('Verify your e-mail address');
      await until(async () => (await jobsTo(to)).length === 0);
    }
  }, 180_000);
});

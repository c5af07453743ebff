import type { Container } from '../../src/container';
import type { Mail } from '../../src/lib/mailer';
import { createTestContainer, type ConfigOverrides } from '../helpers/container';
import { prisma } from '../helpers/db';
import { createUser, unique } from '../helpers/factories';
import { until } from '../helpers/server-process';
import { captureSmtp, startSmtpCapture, type SmtpCapture } from '../helpers/smtp';

/**
 * Issue 16, item 4: mail goes through a durable queue in PostgreSQL (pg-boss). A mail queued
 * while SMTP refuses is kept, survives a restart of the worker (a new container) and is
 * delivered once SMTP is back; a mail queued in a transaction that rolls back never exists.
 */
const mailTo = (to: string): Mail => ({ kind: 'verification', to, subject: 'Verify your e-mail address', text: `code 123456 for ${to}`, html: '<p>code</p>' });

async function jobsTo(to: string): Promise<Array<{ state: string }>> {
  return prisma.$queryRawUnsafe(`SELECT state FROM pgboss.job WHERE name = 'mail' AND data->'mail'->>'to' = $1`, to);
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
    expect(first.mailQueue.durable).toBe(true);
    await first.prisma.$transaction(async (tx) => {
      await tx.user.update({ where: { id: user.id }, data: { firstName: 'Queued' } });
      await first.mailQueue.enqueue(mailTo(user.email), tx);
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
    await until(async () => (await jobsTo(user.email))[0]?.state === 'completed');
    expect(smtp.mails.filter((m) => m.to.includes(user.email.toLowerCase()))).toHaveLength(1);
  }, 120_000);

  it('never sends a mail queued in a transaction that rolls back', async () => {
    const to = `${unique('rollback_')}@example.test`;
    const c = container();
    await expect(
      c.prisma.$transaction(async (tx) => {
        await c.mailQueue.enqueue(mailTo(to), tx);
        throw new Error('the user change failed');
      }),
    ).rejects.toThrow('the user change failed');
    expect(await jobsTo(to)).toEqual([]);
  });
});

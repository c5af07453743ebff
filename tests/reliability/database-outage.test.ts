import { Client } from 'pg';
import { unique } from '../helpers/factories';
import { spawnServer, until, type ServerProcess } from '../helpers/server-process';
import { startSmtpCapture, type SmtpCapture } from '../helpers/smtp';
import { adminUrl, databaseUrlFor } from '../setup/test-db';

/**
 * Issue 23, item 1, with the real server process on a database of its own: while mails are
 * being sent, every connection of the service is terminated (pg_terminate_backend, as a
 * PostgreSQL restart, a fail-over or a proxy dropping connections does) and the database
 * refuses new ones for a while. The service stays up, answers 503 with warnings meanwhile,
 * recovers by itself once the database is back, and the mails are sent and marked done.
 */
describe('a database outage under a running server', () => {
  const name = `wcs_outage_${Date.now()}_${process.pid}`;
  const url = databaseUrlFor(name);
  let admin: Client;
  let observer: Client;
  let smtp: SmtpCapture;
  let server: ServerProcess | undefined;

  beforeAll(async () => {
    admin = new Client({ connectionString: adminUrl() });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${name}"`);
    smtp = await startSmtpCapture();
  });
  afterAll(async () => {
    if (server && server.child.exitCode === null) {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    await observer?.end().catch(() => undefined);
    await admin.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS true`).catch(() => undefined);
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.end();
    await smtp.close();
  });

  const register = async (s: ServerProcess) => {
    const username = unique('outage_');
    const email = `${username}@example.test`;
    const res = await fetch(`${s.url}/api/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username, email, password: 'secret123' }),
    });
    expect(res.status).toBe(201);
    return email;
  };
  // Mail jobs hold references ({ kind, userId, ... }) and are deleted once sent (docs/security-hardening.md).
  const jobStates = async (emails: string[]) =>
    (
      await observer.query<{ state: string }>(
        `SELECT j.state FROM pgboss.job j JOIN "User" u ON j.data->>'userId' = u.id::text WHERE u.email = ANY($1::text[])`,
        [emails],
      )
    ).rows.map((r) => r.state);

  it('answers 503 with a warning while the database is gone, never exits, recovers by itself and completes the mails sent meanwhile', async () => {
    smtp.setDelay(2500);
    server = await spawnServer({ DATABASE_URL: url, SMTP_HOST: '127.0.0.1', SMTP_PORT: String(smtp.port) });
    await server.waitForOutput(/listening on/);
    observer = new Client({ connectionString: url });
    await observer.connect();
    const observerPid = (await observer.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;

    // one mail in flight (the slow SMTP server holds it), one queued behind it
    const receivingBefore = smtp.receiving;
    const inFlight = await register(server);
    const queued = await register(server);
    await until(async () => (await jobStates([inFlight]))[0] === 'active');
    // the worker renders the mail from the database before sending it: cut the connections only
    // once its transfer has reached the SMTP server
    await until(async () => smtp.receiving > receivingBefore);

    // The outage: new connections refused, every connection of the service cut.
    await admin.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS false`);
    await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> $2', [
      name,
      observerPid,
    ]);

    // SMTP accepts the mail in flight during the outage: marking it done fails (pg-boss's complete rejects)
    await smtp.mailTo(inFlight, 30_000);
    const login = () =>
      fetch(`${server!.url}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: inFlight, password: 'secret123' }),
      });
    let during: Response | undefined;
    await until(async () => {
      during = await login();
      return during.status === 503;
    }, 250);
    expect(during!.headers.get('retry-after')).toBe('1');
    expect(await during!.json()).toMatchObject({ success: false, code: 'SERVICE_UNAVAILABLE' });
    await server.waitForOutput(/mail queue: database unavailable/);
    // long enough for a rejected completion to have surfaced
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(server.child.exitCode).toBeNull();

    await admin.query(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS true`);
    await until(async () => (await login()).status === 200, 250);
    smtp.setDelay(0);
    // the queued mail is sent after the outage; the one sent during it is marked done, not sent again
    expect((await smtp.mailTo(queued, 30_000)).subject).toBe('Verify your e-mail address');
    // both jobs recorded as sent: deleted
    await until(async () => (await jobStates([inFlight, queued])).length === 0, 250);
    const after = await register(server);
    expect((await smtp.mailTo(after, 30_000)).subject).toBe('Verify your e-mail address');
    expect(server.child.exitCode).toBeNull();
    expect(server.output()).not.toMatch(/unhandled promise rejection: shutting down/);
    for (const to of [inFlight, queued]) expect(smtp.mails.filter((m) => m.to.includes(to))).toHaveLength(1);
  }, 120_000);
});

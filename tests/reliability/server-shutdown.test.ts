import http from 'node:http';
import { Client } from 'pg';
import { createUser, type TestUser } from '../helpers/factories';
import { spawnServer, until, type ServerProcess } from '../helpers/server-process';

/**
 * Issue 16, item 3, with the real server process under keep-alive load: on SIGTERM the server
 * stops accepting, answers the requests in flight (with `Connection: close`) instead of serving
 * more on busy keep-alive connections, waits for their handlers before closing the database,
 * and exits 0. No response is a 500.
 */
interface Answer {
  status: number;
  connection: string | undefined;
  /** the request was sent after the server had logged "shutting down" */
  afterShutdown: boolean;
}

function get(
  agent: http.Agent,
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; connection?: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection }));
    });
    req.on('error', reject);
  });
}

describe('SIGTERM under keep-alive load', () => {
  let member: TestUser;
  let server: ServerProcess;
  const databaseUrl = process.env.DATABASE_URL as string;

  beforeAll(async () => {
    member = await createUser();
    // SHUTDOWN_TIMEOUT_MS is long so that the outcome does not depend on this machine's speed.
    server = await spawnServer({ DATABASE_URL: databaseUrl, SHUTDOWN_TIMEOUT_MS: '60000' });
    await server.waitForOutput(/listening on/);
  });
  afterAll(() => {
    if (server.child.exitCode === null) server.child.kill('SIGKILL');
  });

  it('answers in-flight requests with Connection: close, serves nothing more on busy connections, and exits 0', async () => {
    let shutdownSeen = false;
    let loading = true;
    const answers: Answer[] = [];
    const failures: string[] = [];

    // Four busy keep-alive connections, each sending the next request as soon as an answer arrives.
    const loops = Array.from({ length: 4 }, async () => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      while (loading) {
        const afterShutdown = shutdownSeen;
        try {
          const { status, connection } = await get(agent, `${server.url}/api/health`);
          answers.push({ status, connection, afterShutdown });
        } catch (err) {
          failures.push((err as NodeJS.ErrnoException).code ?? String(err));
          if (server.child.exitCode !== null || shutdownSeen) break;
        }
      }
      agent.destroy();
    });
    await until(async () => answers.length >= 20);

    // Requests held in flight: authentication reads "User", locked here until after SIGTERM.
    const blocker = new Client({ connectionString: databaseUrl });
    await blocker.connect();
    await blocker.query('BEGIN');
    await blocker.query('LOCK TABLE "User" IN ACCESS EXCLUSIVE MODE');
    const observer = new Client({ connectionString: databaseUrl });
    await observer.connect();
    const inFlight = Array.from({ length: 3 }, () =>
      get(new http.Agent({ keepAlive: true }), `${server.url}/api/events/no-such-event/details`, {
        Authorization: member.auth,
      }),
    );
    await until(async () => {
      const { rows } = await observer.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%"User"%'`,
      );
      // the session check reads the users of requests arriving together in one statement
      // (src/lib/batched-reads.ts): the three may wait in one to three statements
      return rows[0].n >= 1;
    });
    // the requests sent together reach the service within a few event-loop turns
    await new Promise((r) => setTimeout(r, 1000));
    await observer.end();

    server.child.kill('SIGTERM');
    await server.waitForOutput(/shutting down/);
    shutdownSeen = true;
    await blocker.query('COMMIT');
    await blocker.end();

    const held = await Promise.all(inFlight);
    const { code } = await server.exited;
    loading = false;
    await Promise.all(loops);

    expect(code).toBe(0);
    expect(server.output()).toContain('shutdown complete');
    for (const answer of held) expect(answer).toEqual({ status: 404, connection: 'close' });
    expect(answers.filter((a) => a.status >= 500)).toEqual([]);
    // After "shutting down", a busy connection gets at most the answer it was waiting for, with
    // `Connection: close`; new connections are refused.
    const late = answers.filter((a) => a.afterShutdown);
    expect(late.length).toBeLessThanOrEqual(4);
    for (const answer of late) expect(answer.connection).toBe('close');
    expect(failures.every((f) => ['ECONNREFUSED', 'ECONNRESET', 'EPIPE'].includes(f))).toBe(true);
  }, 120000);
});

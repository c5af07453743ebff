import { createAdmin, createEvent, createUser, joinEvent, type TestUser } from '../helpers/factories';
import { describeWithRedis, usePrivateRedis, type PrivateRedis } from '../helpers/redis-server';
import { spawnServer, until, type ServerProcess } from '../helpers/server-process';
import { connectSocket, emitAck, nextEvent, type ClientSocket } from '../helpers/socket';

/**
 * Issue 23, item 2, with two real service instances sharing a private real redis-server
 * (DECISIONS "Redis trouble"): Redis frozen (SIGSTOP), killed and restarted under traffic. No
 * instance exits; logins answer 200 and `join_event_room` is acknowledged within 5 s (the
 * test's request timeouts); each instance logs the outage once; sharing (the admin activity
 * stream across instances) resumes by itself when Redis is back.
 */
const WITHIN_MS = 5000;
const OUTAGE_LINE = /"msg":"Redis unavailable/g;

describeWithRedis('two instances and a Redis that freezes, dies and comes back', () => {
  const privateRedis = usePrivateRedis();
  let redis: PrivateRedis;
  let a: ServerProcess;
  let b: ServerProcess;
  const sockets: ClientSocket[] = [];
  let admin: TestUser;
  let user: TestUser;
  let event: Awaited<ReturnType<typeof createEvent>>;

  beforeAll(async () => {
    redis = privateRedis.get()!;
    const env = {
      REDIS_URL: redis.url,
      RATE_LIMIT_ENABLED: 'true',
      RATE_LIMIT_AUTH_MAX: '10000',
      RATE_LIMIT_GENERAL_MAX: '10000',
    };
    [a, b] = await Promise.all([spawnServer(env), spawnServer(env)]);
    await Promise.all([a.waitForOutput(/listening on/), b.waitForOutput(/listening on/)]);
    admin = await createAdmin();
    user = await createUser();
    event = await createEvent({ withChatRoom: true });
    await joinEvent(user.user, event);
  }, 90_000);

  afterAll(async () => {
    for (const s of sockets) s.close();
    for (const s of [a, b]) {
      if (s && s.child.exitCode === null) {
        s.child.kill('SIGTERM');
        await s.exited;
      }
    }
  });

  const login = (server: ServerProcess) =>
    fetch(`${server.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: user.user.email, password: user.password }),
      signal: AbortSignal.timeout(WITHIN_MS),
    });
  const socketOn = async (server: ServerProcess, token: string) => {
    const socket = await connectSocket(server.url, token);
    sockets.push(socket);
    return socket;
  };
  const outageLines = (server: ServerProcess) => server.output().match(OUTAGE_LINE)?.length ?? 0;
  /** A login on B reaches the admin watching on A: the instances share through Redis again. */
  const sharingWorks = async (watcher: ClientSocket) => {
    await until(async () => {
      const entry = nextEvent<{ action: string; username: string }>(watcher, 'activity_log_entry', 1500).catch(
        () => undefined,
      );
      expect((await login(b)).status).toBe(200);
      return (await entry)?.username === user.user.username;
    }, 250);
  };
  /** What a user does during the outage, on both instances: log in, join the event room. */
  const serves = async () => {
    for (const server of [a, b]) {
      expect((await login(server)).status).toBe(200);
      const socket = await socketOn(server, user.token);
      expect(await emitAck(socket, 'join_event_room', event.slug)).toMatchObject({ success: true });
      socket.close();
    }
  };

  it('keeps serving while Redis is frozen (SIGSTOP), logs it once, and shares again once it thaws', async () => {
    const watcher = await socketOn(a, admin.token);
    expect(await emitAck(watcher, 'join_admin_activity_logs')).toEqual({ success: true });
    await sharingWorks(watcher);

    redis.pause();
    try {
      await serves();
      await serves();
      expect([a.child.exitCode, b.child.exitCode]).toEqual([null, null]);
      expect([outageLines(a), outageLines(b)]).toEqual([1, 1]);
    } finally {
      redis.resume();
    }
    await sharingWorks(watcher);
    await a.waitForOutput(/Redis answers again/);
  }, 120_000);

  it('keeps serving while Redis is killed under traffic, never exits, logs it once, and shares again after a restart', async () => {
    const watcher = await socketOn(a, admin.token);
    expect(await emitAck(watcher, 'join_admin_activity_logs')).toEqual({ success: true });
    const before = [outageLines(a), outageLines(b)];
    // traffic while Redis dies: chat messages broadcast through the adapter on both instances
    const talkers = [await socketOn(a, user.token), await socketOn(b, user.token)];
    for (const t of talkers) expect(await emitAck(t, 'join_event_room', event.slug)).toMatchObject({ success: true });
    let talking = true;
    const traffic = (async () => {
      for (let i = 0; talking; i++) {
        await emitAck(talkers[i % 2], 'send_event_message', { content: `during the outage ${i}` }).catch(
          () => undefined,
        );
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    })();

    await redis.kill();
    try {
      await serves();
      // well past the redis adapter's and pg-boss's reconnect attempts (the crash came 2.4 s after the kill)
      await new Promise((resolve) => setTimeout(resolve, 4000));
      await serves();
      expect([a.child.exitCode, b.child.exitCode]).toEqual([null, null]);
      expect([outageLines(a) - before[0], outageLines(b) - before[1]]).toEqual([1, 1]);
    } finally {
      talking = false;
      await traffic;
    }
    await redis.restart();
    await sharingWorks(watcher);
    expect(a.output() + b.output()).not.toMatch(/unhandled promise rejection: shutting down/);
  }, 120_000);
});

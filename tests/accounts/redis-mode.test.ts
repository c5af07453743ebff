import type { ChildProcess } from 'node:child_process';
import { createClient } from 'redis';
import supertest from 'supertest';
import { createAdmin, createEvent, createUser, joinEvent } from '../helpers/factories';
import { childEnv, freePort, spawnTs } from '../helpers/process';
import { describeWithRedis, usePrivateRedis } from '../helpers/redis-server';
import { connectSocket, emitAck, nextEvent, receivesWithin } from '../helpers/socket';

/**
 * REDIS_URL mode, against a private real redis-server of this file (tests/helpers/redis-server.ts):
 * two real service instances share the rate-limit counters and Socket.IO broadcasts. Skipped
 * when redis-server is not installed (describeWithRedis); with CI=true that fails instead.
 */

/** Clears the rate-limit keys; false when Redis does not answer. */
async function clearRateLimitKeys(url: string): Promise<boolean> {
  const client = createClient({ url, socket: { connectTimeout: 1000, reconnectStrategy: false } });
  client.on('error', () => undefined);
  try {
    await client.connect();
    for await (const keys of client.scanIterator({ MATCH: 'rl:*', COUNT: 100 })) {
      if (keys.length) await client.del(keys);
    }
    await client.quit();
    return true;
  } catch {
    return false;
  }
}

interface Instance {
  url: string;
  child: ChildProcess;
}

async function startInstance(redisUrl: string): Promise<Instance> {
  const port = await freePort();
  const child = spawnTs(
    'src/server.ts',
    [],
    childEnv({
      PORT: String(port),
      HOST: '127.0.0.1',
      REDIS_URL: redisUrl,
      RATE_LIMIT_ENABLED: 'true',
      RATE_LIMIT_AUTH_MAX: '3',
      LOG_LEVEL: 'info',
    }),
  );
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`instance did not start:\n${output}`)), 30_000);
    const onData = (d: Buffer) => {
      output += d.toString();
      if (output.includes('listening on')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`instance exited with ${code}:\n${output}`));
    });
  });
  child.removeAllListeners('exit');
  return { url: `http://127.0.0.1:${port}`, child };
}

async function stop(instance: Instance | undefined): Promise<void> {
  if (!instance || instance.child.exitCode !== null) return;
  await new Promise<void>((resolve) => {
    instance.child.once('exit', () => resolve());
    instance.child.kill('SIGTERM');
  });
}

describeWithRedis('REDIS_URL: state shared by several instances', () => {
  const privateRedis = usePrivateRedis();
  let redisUrl: string;
  let a: Instance | undefined;
  let b: Instance | undefined;

  beforeAll(async () => {
    redisUrl = privateRedis.get()!.url;
    [a, b] = await Promise.all([startInstance(redisUrl), startInstance(redisUrl)]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all([stop(a), stop(b)]);
  });

  it('delivers an activity log entry logged on instance B to an admin socket on instance A', async () => {
    const admin = await createAdmin();
    const user = await createUser();
    const socket = await connectSocket(a!.url, admin.token);
    try {
      expect(await emitAck(socket, 'join_admin_activity_logs')).toEqual({ success: true });
      const got = nextEvent<Record<string, unknown>>(socket, 'activity_log_entry', 5000);
      const res = await supertest(b!.url)
        .post('/api/auth/login')
        .send({ email: user.user.email, password: user.password });
      expect(res.status).toBe(200);
      await expect(got).resolves.toMatchObject({ action: 'login', username: user.user.username });
    } finally {
      socket.close();
    }
  });

  it("presence spans instances: deltas only for a user's first socket joined and last socket gone, wherever they are", async () => {
    const event = await createEvent({ withChatRoom: true });
    const watcher = await createUser();
    const mover = await createUser();
    for (const u of [watcher, mover]) await joinEvent(u.user, event);
    const w = await connectSocket(a!.url, watcher.token);
    const onA = await connectSocket(a!.url, mover.token);
    const onB = await connectSocket(b!.url, mover.token);
    try {
      expect(await emitAck(w, 'join_event_room', event.slug)).toMatchObject({ success: true });
      const joined = nextEvent(w, 'user_joined', 5000);
      await emitAck(onB, 'join_event_room', event.slug);
      await expect(joined).resolves.toEqual({
        userId: mover.user.id,
        username: mover.user.username,
        avatar: mover.user.avatar,
      });

      // the second socket (other instance) joins, then the first one leaves: no delta
      const quiet = receivesWithin(w, 'user_joined', 500);
      const listed = nextEvent<{ userId: number }[]>(onA, 'active_users', 5000);
      await emitAck(onA, 'join_event_room', event.slug);
      expect((await listed).map((u) => u.userId).sort()).toEqual([watcher.user.id, mover.user.id].sort());
      expect(await quiet).toBe(false);
      const stillThere = receivesWithin(w, 'user_left', 500);
      await emitAck(onB, 'leave_event_room');
      expect(await stillThere).toBe(false);

      const left = nextEvent(w, 'user_left', 5000);
      onA.close();
      await expect(left).resolves.toEqual({ userId: mover.user.id });
    } finally {
      for (const s of [w, onA, onB]) s.close();
    }
  });

  it('batched presence spans instances: a join on B reaches a batched socket on A as presence_changes and a plain one on B as user_joined', async () => {
    const event = await createEvent({ withChatRoom: true });
    const [batched, plain, mover] = [await createUser(), await createUser(), await createUser()];
    for (const u of [batched, plain, mover]) await joinEvent(u.user, event);
    const onA = await connectSocket(a!.url, batched.token, { auth: { presence: 'batched' } });
    const onB = await connectSocket(b!.url, plain.token);
    const moving = await connectSocket(b!.url, mover.token);
    try {
      for (const s of [onA, onB])
        expect(await emitAck(s, 'join_event_room', event.slug)).toMatchObject({ success: true });
      const changes = nextEvent<{ changes: unknown[] }>(onA, 'presence_changes', 5000);
      const single = receivesWithin(onA, 'user_joined', 1000);
      const joined = nextEvent(onB, 'user_joined', 5000);
      const noBatch = receivesWithin(onB, 'presence_changes', 1000);
      await emitAck(moving, 'join_event_room', event.slug);
      const mine = { userId: mover.user.id, username: mover.user.username, avatar: mover.user.avatar };
      await expect(changes).resolves.toEqual({ changes: [{ event: 'user_joined', data: mine }] });
      await expect(joined).resolves.toEqual(mine);
      expect(await single).toBe(false);
      expect(await noBatch).toBe(false);
    } finally {
      for (const s of [onA, onB, moving]) s.close();
    }
  });

  it('counts the auth rate limit across instances', async () => {
    expect(await clearRateLimitKeys(redisUrl)).toBe(true);
    const body = { email: 'nobody-redis@example.test', password: 'wrong' };
    const statuses = [
      (await supertest(a!.url).post('/api/auth/login').send(body)).status,
      (await supertest(b!.url).post('/api/auth/login').send(body)).status,
      (await supertest(a!.url).post('/api/auth/login').send(body)).status,
      (await supertest(b!.url).post('/api/auth/login').send(body)).status,
    ];
    // limit 3 per IP: only a shared counter refuses the 4th (each instance saw 2)
    expect(statuses).toEqual([401, 401, 401, 429]);
  });
});

describe('REDIS_URL set but Redis unreachable', () => {
  let instance: Instance | undefined;
  afterAll(async () => {
    await stop(instance);
  });

  it('still serves requests (the rate limiter fails open instead of hanging)', async () => {
    instance = await startInstance('redis://127.0.0.1:1/0');
    const res = await supertest(instance.url).get('/api/health').timeout(10_000);
    expect(res.status).toBe(200);
    const login = await supertest(instance.url)
      .post('/api/auth/login')
      .send({ email: 'nobody@example.test', password: 'x' })
      .timeout(10_000);
    expect(login.status).toBe(401);
  }, 30_000);
});

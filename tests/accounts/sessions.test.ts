import { systemActor } from '../../src/lib/actor';
import jwt from 'jsonwebtoken';
import { prisma } from '../helpers/db';
import { createAdmin, createEvent, createUser, ensureEventRoom, joinEvent, type TestUser } from '../helpers/factories';
import { testConfig } from '../helpers/container';
import { useTestServer } from '../helpers/server';
import {
  connectSocket,
  emitAck,
  nextEvent,
  receivesWithin,
  useSocketClients,
  type ClientSocket,
} from '../helpers/socket';
import { sha256 } from '../../src/lib/ids';

/** Resolves when the server disconnected the socket (rejects after 3 s). */
const disconnected = (socket: ClientSocket) =>
  new Promise<string>((resolve, reject) => {
    if (socket.disconnected) return resolve('already');
    const timer = setTimeout(() => reject(new Error('socket still connected')), 3000);
    socket.once('disconnect', (reason) => {
      clearTimeout(timer);
      resolve(reason);
    });
  });

/** A token signed with the service's secret but with claims of the test's choosing. */
const signRaw = (claims: Record<string, unknown>, options: jwt.SignOptions = {}) =>
  jwt.sign(claims, testConfig().jwt.secret, { algorithm: 'HS256', ...options });

describe('sessions end with a password change or reset', () => {
  const server = useTestServer();
  const connect = useSocketClients(() => server.url);

  it('PATCH /users/me/password answers a fresh token; the earlier one gets 401 "Invalid or expired token"', async () => {
    const me = await createUser();
    const res = await server.request
      .patch('/api/users/me/password')
      .set('Authorization', me.auth)
      .send({ currentPassword: me.password, newPassword: 'another-secret' });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ message: 'Password changed', token: expect.any(String) });
    const old = await server.request.get('/api/users/me').set('Authorization', me.auth);
    expect(old.status).toBe(401);
    expect(old.body).toMatchObject({ success: false, error: 'Invalid or expired token', code: 'INVALID_TOKEN' });
    const fresh = await server.request.get('/api/users/me').set('Authorization', `Bearer ${res.body.data.token}`);
    expect(fresh.status).toBe(200);
    expect((await prisma.user.findUniqueOrThrow({ where: { id: me.user.id } })).tokenVersion).toBe(1);
  });

  it('a password change disconnects the sockets of earlier tokens and refuses new ones with them', async () => {
    const me = await createUser();
    const socket = await connect(me);
    const gone = disconnected(socket);
    const res = await server.request
      .patch('/api/users/me/password')
      .set('Authorization', me.auth)
      .send({ currentPassword: me.password, newPassword: 'another-secret' });
    expect(res.status).toBe(200);
    await expect(gone).resolves.toBe('io server disconnect');
    await expect(connect(me)).rejects.toThrow('Invalid or expired token');
    const fresh = await connect(res.body.data.token);
    expect(fresh.connected).toBe(true);
  });

  it('a password reset ends every earlier session, over HTTP and for sockets', async () => {
    const me = await createUser();
    const socket = await connect(me);
    const gone = disconnected(socket);
    const resetToken = `reset-${me.user.id}-${Date.now()}`;
    await prisma.user.update({
      where: { id: me.user.id },
      data: { resetTokenHash: sha256(resetToken), resetExpiresAt: new Date(Date.now() + 60_000) },
    });
    const res = await server.request
      .post('/api/auth/reset-password')
      .send({ token: resetToken, newPassword: 'after-reset' });
    expect(res.status).toBe(200);
    await expect(gone).resolves.toBe('io server disconnect');
    expect((await server.request.get('/api/users/me').set('Authorization', me.auth)).status).toBe(401);
    await expect(connect(me)).rejects.toThrow('Invalid or expired token');
  });

  it('refuses a token without exp with 401, over HTTP and at the socket handshake', async () => {
    const me = await createUser();
    const noExp = signRaw({ ev: true, tv: 0 }, { subject: String(me.user.id) });
    const res = await server.request.get('/api/users/me').set('Authorization', `Bearer ${noExp}`);
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ error: 'Invalid or expired token', code: 'INVALID_TOKEN' });
    await expect(connect(noExp)).rejects.toThrow('Invalid or expired token');
  });

  it('a socket is disconnected by the server when its token expires', async () => {
    const me = await createUser();
    // at least one second left at the handshake: `+ 1` left between 0 and 1 s, and a handshake
    // that came after the expiry was refused (a flake of the clean-clone run of 2026-11-27)
    const exp = Math.floor(Date.now() / 1000) + 2;
    const socket = await connect(signRaw({ ev: true, tv: 0, exp }, { subject: String(me.user.id) }));
    await expect(disconnected(socket)).resolves.toBe('io server disconnect');
  });
});

describe('a connected socket after its token expired', () => {
  /** the service's clock, moved past the token's expiry by the test (real time stands still for jwt) */
  let offsetMs = 0;
  const server = useTestServer({}, { clock: { now: () => new Date(Date.now() + offsetMs) } });
  afterEach(() => {
    offsetMs = 0;
  });

  it('can no longer send chat messages: the event is refused with INVALID_TOKEN and the socket disconnected', async () => {
    const me = await createUser();
    const event = await createEvent();
    await joinEvent(me.user, event);
    const room = await ensureEventRoom(event);
    const socket = await connectSocket(server.url, me.token);
    try {
      expect(await emitAck(socket, 'join_event_room', event.slug)).toMatchObject({ success: true });
      expect(await emitAck(socket, 'send_event_message', { content: 'while valid' })).toMatchObject({ success: true });
      offsetMs = 25 * 60 * 60 * 1000; // past the 24 h lifetime
      const gone = disconnected(socket);
      expect(await emitAck(socket, 'send_event_message', { content: 'after expiry' })).toEqual({
        success: false,
        error: 'Invalid or expired token',
        code: 'INVALID_TOKEN',
      });
      await expect(gone).resolves.toBe('io server disconnect');
      expect(await prisma.message.count({ where: { roomId: room.id, content: 'after expiry' } })).toBe(0);
    } finally {
      socket.close();
    }
  });
});

describe('the activity-log stream follows the current role', () => {
  const server = useTestServer();
  const sockets: ClientSocket[] = [];
  afterAll(() => {
    for (const s of sockets) s.close();
  });
  const watcher = async (admin: TestUser) => {
    const socket = await connectSocket(server.url, admin.token);
    sockets.push(socket);
    expect(await emitAck(socket, 'join_admin_activity_logs')).toEqual({ success: true });
    return socket;
  };
  const someLogin = async () => {
    const u = await createUser();
    expect(
      (await server.request.post('/api/auth/login').send({ email: u.user.email, password: u.password })).status,
    ).toBe(200);
    return u;
  };

  it('an admin socket stops receiving activity_log_entry once the user lost admin rights (changed in the database)', async () => {
    const admin = await createAdmin();
    const other = await createAdmin();
    const socket = await watcher(admin);
    const control = await watcher(other);
    await prisma.user.update({ where: { id: admin.user.id }, data: { isAdmin: false } });
    const controlGot = nextEvent(control, 'activity_log_entry');
    const got = receivesWithin(socket, 'activity_log_entry', 700);
    await someLogin();
    await controlGot;
    await expect(got).resolves.toBe(false);
  });

  it('user:demote takes the sockets out of the stream; joining again answers 403', async () => {
    const admin = await createAdmin();
    const socket = await watcher(admin);
    await server.container.operatorAccounts.demoteFromAdmin(systemActor('test'), { email: admin.user.email });
    const got = receivesWithin(socket, 'activity_log_entry', 700);
    await someLogin();
    await expect(got).resolves.toBe(false);
    expect(await emitAck(socket, 'join_admin_activity_logs')).toEqual({
      success: false,
      error: 'Admin access required',
      code: 'ADMIN_REQUIRED',
    });
  });

  it('a user promoted while connected may join the stream without reconnecting', async () => {
    const user = await createUser();
    const socket = await connectSocket(server.url, user.token);
    sockets.push(socket);
    await server.container.operatorAccounts.promoteToAdmin(systemActor('test'), { email: user.user.email });
    expect(await emitAck(socket, 'join_admin_activity_logs')).toEqual({ success: true });
  });
});

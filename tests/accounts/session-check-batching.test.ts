import { prisma } from '../helpers/db';
import { createEvent, createUser, ensureEventRoom, joinEvent, type TestUser } from '../helpers/factories';
import { useTestServer } from '../helpers/server';
import { connectSocket, emitAck, useSocketClients, type ClientSocket } from '../helpers/socket';

/** The connect_error of a refused handshake: its message and `data.code`. */
async function refusal(url: string, token: string): Promise<{ message: string; code?: string }> {
  try {
    const socket = await connectSocket(url, token);
    socket.close();
    return { message: 'connected' };
  } catch (err) {
    const e = err as Error & { data?: { code?: string } };
    return { message: e.message, code: e.data?.code };
  }
}

const disconnected = (socket: ClientSocket) =>
  new Promise<void>((resolve, reject) => {
    if (socket.disconnected) return resolve();
    const timer = setTimeout(() => reject(new Error('socket still connected')), 5000);
    socket.once('disconnect', () => {
      clearTimeout(timer);
      resolve();
    });
  });

/**
 * The session check of requests and handshakes (src/lib/auth.ts) reads the users of many
 * handshakes in one statement (src/lib/batched-reads.ts). Batching must never serve a stale
 * user: a revoked session, a deleted user and a bumped token version are refused on the very
 * next handshake and request, also when they arrive among many others.
 */
describe('session checks read in batches stay exact', () => {
  const server = useTestServer();
  const connect = useSocketClients(() => server.url);
  const invalid = { message: 'Invalid or expired token', code: 'INVALID_TOKEN' };

  it('forty handshakes at once all connect and cost fewer user reads than handshakes', async () => {
    const users = await Promise.all(Array.from({ length: 40 }, () => createUser()));
    const before = server.container.database.poolStats().queries;
    const sockets = await Promise.all(users.map((u) => connect(u)));
    const statements = server.container.database.poolStats().queries - before;
    expect(sockets.every((s) => s.connected)).toBe(true);
    expect(statements).toBeLessThan(users.length);
  });

  it('among many handshakes at once, a deleted user, a bumped token version and a revoked session are refused and the rest connect', async () => {
    const users = await Promise.all(Array.from({ length: 30 }, () => createUser()));
    const [deleted, bumped, revoked] = users;
    await prisma.user.delete({ where: { id: deleted.user.id } });
    await prisma.user.update({ where: { id: bumped.user.id }, data: { tokenVersion: { increment: 1 } } });
    const change = await server.request
      .patch('/api/users/me/password')
      .set('Authorization', revoked.auth)
      .send({ currentPassword: revoked.password, newPassword: 'another-secret' });
    expect(change.status).toBe(200);

    const outcomes = await Promise.all(users.map((u) => refusal(server.url, u.token)));
    expect(outcomes.slice(0, 3)).toEqual([invalid, invalid, invalid]);
    expect(outcomes.slice(3).every((o) => o.message === 'connected')).toBe(true);
  });

  it('the handshake and the request right after deleting a user are refused', async () => {
    const me = await createUser();
    await (await connect(me)).close();
    await server.request.get('/api/users/me').set('Authorization', me.auth).expect(200);
    await prisma.user.delete({ where: { id: me.user.id } });
    expect(await refusal(server.url, me.token)).toEqual(invalid);
    const res = await server.request.get('/api/users/me').set('Authorization', me.auth);
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ success: false, code: 'INVALID_TOKEN' });
  });

  it('the handshake and the request right after a token-version bump are refused, and a connected socket is disconnected at its next join', async () => {
    const me = await createUser();
    const event = await createEvent();
    await joinEvent(me.user, event);
    await ensureEventRoom(event);
    const socket = await connect(me);
    expect((await emitAck(socket, 'join_event_room', event.slug)).success).toBe(true);
    await prisma.user.update({ where: { id: me.user.id }, data: { tokenVersion: { increment: 1 } } });

    expect(await refusal(server.url, me.token)).toEqual(invalid);
    expect((await server.request.get('/api/events').set('Authorization', me.auth)).status).toBe(401);
    const ack = await emitAck(socket, 'join_event_room', event.slug);
    expect(ack).toMatchObject({ success: false, code: 'INVALID_TOKEN' });
    await disconnected(socket);
  });

  it('a password change refuses the old token on the next handshake and request while the new token works', async () => {
    const me: TestUser = await createUser();
    const res = await server.request
      .patch('/api/users/me/password')
      .set('Authorization', me.auth)
      .send({ currentPassword: me.password, newPassword: 'another-secret' });
    expect(res.status).toBe(200);
    expect(await refusal(server.url, me.token)).toEqual(invalid);
    expect((await server.request.get('/api/users/me').set('Authorization', me.auth)).status).toBe(401);
    const fresh = await connect(res.body.data.token as string);
    expect(fresh.connected).toBe(true);
  });
});

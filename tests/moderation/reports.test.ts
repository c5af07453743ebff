import { prisma } from '../helpers/db';
import { createAdmin, createUser, ensureEventRoom, type TestUser } from '../helpers/factories';
import { createTrio, insertMatch } from '../helpers/matches';
import { useTestServer } from '../helpers/server';
import { emitAck, nextEvent, useSocketClients } from '../helpers/socket';

const DELETED_USER = { id: null, username: 'deleted-user', avatar: null, firstName: null, lastName: null };
const summary = (u: TestUser) => ({
  id: u.user.id,
  username: u.user.username,
  avatar: u.user.avatar,
  firstName: u.user.firstName,
  lastName: u.user.lastName,
});

describe('reports', () => {
  const server = useTestServer();
  const connect = useSocketClients(() => server.url);
  let admin: TestUser;
  beforeAll(async () => {
    admin = await createAdmin();
  });
  const report = (by: TestUser, body: object) =>
    server.request.post('/api/reports').set('Authorization', by.auth).send(body);
  const queue = (query = '', as: TestUser = admin) =>
    server.request.get(`/api/admin/reports${query}`).set('Authorization', as.auth);
  const close = (id: number | string, body: object, as: TestUser = admin) =>
    server.request.patch(`/api/admin/reports/${id}`).set('Authorization', as.auth).send(body);
  const itemOf = async (id: number) => {
    const res = await queue().expect(200);
    return res.body.data.find((r: { id: number }) => r.id === id);
  };

  describe('POST /reports', () => {
    it('reports a user (regardless of case, blocks notwithstanding): 201, the row, and report_create reaching the live stream', async () => {
      const alice = await createUser();
      const bob = await createUser();
      await server.request.post(`/api/users/${alice.user.username}/block`).set('Authorization', bob.auth).expect(201);
      const watcher = await connect(admin);
      expect((await emitAck(watcher, 'join_admin_activity_logs')).success).toBe(true);
      const streamed = nextEvent<{ action: string; resource: string }>(watcher, 'activity_log_entry');

      const res = await report(alice, {
        targetType: 'user',
        targetId: bob.user.username.toUpperCase(),
        reason: 'harassment',
        details: '  rude at the social  ',
      });
      expect(res.status).toBe(201);
      expect(res.body.data).toEqual({
        id: expect.any(Number),
        status: 'open',
        targetType: 'user',
        targetId: bob.user.username,
        reason: 'harassment',
        details: 'rude at the social',
        createdAt: expect.any(String),
      });
      const id = res.body.data.id;
      expect(await prisma.report.findUniqueOrThrow({ where: { id } })).toMatchObject({
        reporterId: alice.user.id,
        targetUserId: bob.user.id,
        status: 'open',
      });
      const entry = await prisma.activityLog.findFirst({
        where: { action: 'report_create', resource: `report:${id}` },
      });
      expect(entry).toMatchObject({
        category: 'admin',
        userId: alice.user.id,
        metadata: { reportId: id, targetType: 'user', targetId: bob.user.username, reason: 'harassment' },
      });
      expect(await streamed).toMatchObject({ action: 'report_create', resource: `report:${id}` });
    });

    it('answers 401 without a token', async () => {
      expect(
        (await server.request.post('/api/reports').send({ targetType: 'user', targetId: 'x', reason: 'spam' })).status,
      ).toBe(401);
    });

    it('refuses an invalid body with 400 VALIDATION_ERROR naming the field', async () => {
      const alice = await createUser();
      const cases: [object, string][] = [
        [{ targetType: 'event', targetId: 'x', reason: 'spam' }, 'targetType'],
        [{ targetType: 'message', targetId: 'abc', reason: 'spam' }, 'targetId'],
        [{ targetType: 'user', targetId: 12, reason: 'spam' }, 'targetId'],
        [{ targetType: 'user', targetId: 'bob', reason: 'rude' }, 'reason'],
        [{ targetType: 'user', targetId: 'bob', reason: 'spam', details: 'x'.repeat(1001) }, 'details'],
      ];
      for (const [body, field] of cases) {
        const res = await report(alice, body);
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('VALIDATION_ERROR');
        expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
      }
    });

    it('refuses an unknown user (404), oneself (400 REPORT_SELF) and a second open report of the same target (409)', async () => {
      const alice = await createUser();
      const bob = await createUser();
      expect(
        (await report(alice, { targetType: 'user', targetId: 'no_such_user_here', reason: 'spam' })).body.code,
      ).toBe('USER_NOT_FOUND');
      expect((await report(alice, { targetType: 'user', targetId: alice.user.username, reason: 'spam' })).body).toEqual(
        {
          success: false,
          error: 'You cannot report yourself',
          code: 'REPORT_SELF',
        },
      );
      await report(alice, { targetType: 'user', targetId: bob.user.username, reason: 'spam' }).expect(201);
      const again = await report(alice, {
        targetType: 'user',
        targetId: bob.user.username.toLowerCase(),
        reason: 'other',
      });
      expect(again.status).toBe(409);
      expect(again.body).toEqual({ success: false, error: 'You have already reported this', code: 'REPORT_EXISTS' });
      // someone else may report the same user
      expect(
        (await report(await createUser(), { targetType: 'user', targetId: bob.user.username, reason: 'spam' })).status,
      ).toBe(201);
    });

    it('accepts a new report of the same target once the earlier one is closed', async () => {
      const alice = await createUser();
      const bob = await createUser();
      const first = await report(alice, { targetType: 'user', targetId: bob.user.username, reason: 'spam' }).expect(
        201,
      );
      await close(first.body.data.id, { status: 'dismissed' }).expect(200);
      expect((await report(alice, { targetType: 'user', targetId: bob.user.username, reason: 'spam' })).status).toBe(
        201,
      );
    });

    it("reports a readable event message (integer targetId) and refuses one of an event the reporter is not in, a deleted one and one's own", async () => {
      const { event, alice, bob } = await createTrio();
      const room = await ensureEventRoom(event);
      const message = await prisma.message.create({
        data: { roomId: room.id, userId: bob.user.id, content: 'buy my stuff' },
      });
      const outsider = await createUser();
      const notReadable = await report(outsider, { targetType: 'message', targetId: message.id, reason: 'spam' });
      expect(notReadable.status).toBe(404);
      expect(notReadable.body).toEqual({ success: false, error: 'Message not found', code: 'MESSAGE_NOT_FOUND' });
      expect((await report(bob, { targetType: 'message', targetId: message.id, reason: 'spam' })).body.code).toBe(
        'REPORT_SELF',
      );
      const ok = await report(alice, { targetType: 'message', targetId: message.id, reason: 'spam' });
      expect(ok.status).toBe(201);
      expect(ok.body.data.targetId).toBe(message.id);
      await prisma.message.update({ where: { id: message.id }, data: { deletedAt: new Date() } });
      expect(
        (await report(await createUser(), { targetType: 'message', targetId: message.id, reason: 'spam' })).status,
      ).toBe(404);
      const carol = (await createTrio()).alice;
      expect((await report(carol, { targetType: 'message', targetId: 2147483647, reason: 'spam' })).status).toBe(404);
    });

    it("reports a message of the reporter's private room and a match the reporter is in; others get 404", async () => {
      const { event, alice, bob, carol } = await createTrio();
      const match = await insertMatch(event, alice.user, bob.user, 'accepted');
      const message = await prisma.message.create({
        data: { roomId: match.chatRoom!.id, userId: bob.user.id, content: 'private words' },
      });
      expect((await report(alice, { targetType: 'message', targetId: message.id, reason: 'harassment' })).status).toBe(
        201,
      );
      expect((await report(carol, { targetType: 'message', targetId: message.id, reason: 'harassment' })).status).toBe(
        404,
      );
      expect((await report(alice, { targetType: 'match', targetId: match.slug, reason: 'safety' })).status).toBe(201);
      const stranger = await report(carol, { targetType: 'match', targetId: match.slug, reason: 'safety' });
      expect(stranger.status).toBe(404);
      expect(stranger.body.code).toBe('MATCH_NOT_FOUND');
    });
  });

  describe('the admin queue', () => {
    it('answers 401 without a token and 403 to non-admins on both admin routes', async () => {
      const alice = await createUser();
      expect((await server.request.get('/api/admin/reports')).status).toBe(401);
      expect((await server.request.patch('/api/admin/reports/1').send({ status: 'resolved' })).status).toBe(401);
      expect((await queue('', alice)).body.code).toBe('ADMIN_REQUIRED');
      expect((await close(1, { status: 'resolved' }, alice)).body.code).toBe('ADMIN_REQUIRED');
    });

    it('lists newest first with pagination, filters by status and refuses another status or a bad page', async () => {
      const alice = await createUser();
      const bob = await createUser();
      const carol = await createUser();
      const first = await report(alice, { targetType: 'user', targetId: bob.user.username, reason: 'spam' }).expect(
        201,
      );
      const second = await report(alice, { targetType: 'user', targetId: carol.user.username, reason: 'other' }).expect(
        201,
      );
      await close(first.body.data.id, { status: 'resolved', note: 'talked to them' }).expect(200);

      const all = await queue().expect(200);
      expect(all.body.pagination).toMatchObject({ page: 1, limit: 50 });
      const ids = all.body.data.map((r: { id: number }) => r.id);
      expect(ids.indexOf(second.body.data.id)).toBeLessThan(ids.indexOf(first.body.data.id));
      const open = await queue('?status=open').expect(200);
      expect(open.body.data.every((r: { status: string }) => r.status === 'open')).toBe(true);
      expect(open.body.data.map((r: { id: number }) => r.id)).toContain(second.body.data.id);
      const resolved = await queue('?status=resolved').expect(200);
      expect(resolved.body.data.map((r: { id: number }) => r.id)).toContain(first.body.data.id);
      for (const q of ['?status=closed', '?page=0', '?page=x']) {
        const res = await queue(q);
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('VALIDATION_ERROR');
      }
    });

    it('shows reporter, target, note and resolver: a user report resolved by an admin', async () => {
      const alice = await createUser({ firstName: 'Alice' });
      const bob = await createUser();
      const created = await report(alice, { targetType: 'user', targetId: bob.user.username, reason: 'safety' }).expect(
        201,
      );
      const open = await itemOf(created.body.data.id);
      expect(open).toMatchObject({
        reporter: summary(alice),
        target: summary(bob),
        note: null,
        resolvedAt: null,
        resolvedBy: null,
      });
      const closed = await close(created.body.data.id, { status: 'resolved', note: '  warned  ' }).expect(200);
      expect(closed.body.data).toMatchObject({
        id: created.body.data.id,
        status: 'resolved',
        note: 'warned',
        resolvedAt: expect.any(String),
        resolvedBy: { id: admin.user.id, username: admin.user.username, avatar: admin.user.avatar },
        reporter: summary(alice),
      });
      const audit = await prisma.activityLog.findFirst({
        where: { action: 'report_update', resource: `report:${created.body.data.id}` },
      });
      expect(audit).toMatchObject({
        category: 'admin',
        userId: admin.user.id,
        metadata: { status: 'resolved', note: 'warned' },
      });
    });

    it('keeps a message report readable after the message is deleted (snapshot, deleted: true)', async () => {
      const { event, alice, bob } = await createTrio();
      const room = await ensureEventRoom(event);
      const message = await prisma.message.create({
        data: { roomId: room.id, userId: bob.user.id, content: 'nasty words' },
      });
      const created = await report(alice, { targetType: 'message', targetId: message.id, reason: 'harassment' }).expect(
        201,
      );
      await server.request.delete(`/api/admin/messages/${message.id}`).set('Authorization', admin.auth).expect(200);
      expect((await itemOf(created.body.data.id)).target).toEqual({
        id: message.id,
        content: 'nasty words',
        createdAt: message.createdAt.toISOString(),
        deleted: true,
        author: summary(bob),
        room: { id: room.id, type: 'event', event: { slug: event.slug, name: event.name } },
      });
    });

    it('shows a match report with its users and status "deleted" once the match is gone', async () => {
      const { event, alice, bob } = await createTrio();
      const match = await insertMatch(event, bob.user, alice.user, 'accepted');
      const created = await report(alice, { targetType: 'match', targetId: match.slug, reason: 'safety' }).expect(201);
      expect((await itemOf(created.body.data.id)).target).toEqual({
        slug: match.slug,
        status: 'accepted',
        event: { slug: event.slug, name: event.name },
        users: [summary(bob), summary(alice)],
      });
      await server.request.delete(`/api/matches/${match.slug}`).set('Authorization', alice.auth).expect(200);
      expect((await itemOf(created.body.data.id)).target.status).toBe('deleted');
    });

    it('shows deleted accounts as the deleted-user placeholder', async () => {
      const alice = await createUser();
      const bob = await createUser();
      const resolver = await createAdmin();
      const created = await report(alice, { targetType: 'user', targetId: bob.user.username, reason: 'spam' }).expect(
        201,
      );
      await close(created.body.data.id, { status: 'dismissed' }, resolver).expect(200);
      await prisma.user.deleteMany({ where: { id: { in: [alice.user.id, bob.user.id, resolver.user.id] } } });
      const item = await itemOf(created.body.data.id);
      expect(item).toMatchObject({
        reporter: DELETED_USER,
        target: DELETED_USER,
        targetId: bob.user.username,
        status: 'dismissed',
        resolvedBy: { id: null, username: 'deleted-user', avatar: null },
      });
    });

    it('closes only an open report: 409 REPORT_NOT_OPEN, 404 for an unknown or malformed id, 400 for another status', async () => {
      const alice = await createUser();
      const bob = await createUser();
      const created = await report(alice, { targetType: 'user', targetId: bob.user.username, reason: 'spam' }).expect(
        201,
      );
      for (const status of ['open', 'closed']) {
        const res = await close(created.body.data.id, { status });
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('VALIDATION_ERROR');
      }
      await close(created.body.data.id, { status: 'dismissed' }).expect(200);
      expect((await close(created.body.data.id, { status: 'resolved' })).body).toEqual({
        success: false,
        error: 'Only an open report can be resolved or dismissed',
        code: 'REPORT_NOT_OPEN',
      });
      for (const id of ['2147483647', 'abc', '99999999999']) {
        const res = await close(id, { status: 'resolved' });
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ success: false, error: 'Report not found', code: 'REPORT_NOT_FOUND' });
      }
    });
  });
});

import { systemActor } from '../../src/lib/actor';
import { prisma } from '../helpers/db';
import { createEvent, createUser, ensureEventRoom, joinEvent, type TestUser } from '../helpers/factories';
import { createTrio, insertMatch } from '../helpers/matches';
import { useTestServer } from '../helpers/server';
import { emitAck, nextEvent, receivesWithin, useSocketClients } from '../helpers/socket';

const blockedAnswer = { success: false, error: 'You cannot interact with this user', code: 'USER_BLOCKED' };

describe('blocks', () => {
  const server = useTestServer();
  const connect = useSocketClients(() => server.url);
  const block = (by: TestUser, whom: string) =>
    server.request.post(`/api/users/${whom}/block`).set('Authorization', by.auth);
  const requestMatch = (by: TestUser, target: TestUser, eventSlug: string) =>
    server.request.post('/api/matches').set('Authorization', by.auth).send({ targetUserId: target.user.id, eventSlug });

  describe('routes', () => {
    it('blocks a user (found regardless of case) with 201 and the summary, and answers 200 with the first blockedAt again', async () => {
      const alice = await createUser();
      const bob = await createUser({ firstName: 'Bob' });
      const first = await block(alice, bob.user.username.toUpperCase());
      expect(first.status).toBe(201);
      expect(first.body.data).toEqual({
        id: bob.user.id,
        username: bob.user.username,
        avatar: bob.user.avatar,
        firstName: 'Bob',
        lastName: null,
        blockedAt: expect.any(String),
      });
      const again = await block(alice, bob.user.username);
      expect(again.status).toBe(200);
      expect(again.body.data.blockedAt).toBe(first.body.data.blockedAt);
      expect(await prisma.userBlock.count({ where: { blockerId: alice.user.id, blockedId: bob.user.id } })).toBe(1);
    });

    it('refuses to block oneself (400 BLOCK_SELF) and an unknown username (404 USER_NOT_FOUND)', async () => {
      const alice = await createUser();
      expect((await block(alice, alice.user.username)).body).toEqual({
        success: false,
        error: 'You cannot block yourself',
        code: 'BLOCK_SELF',
      });
      const unknown = await block(alice, 'nobody_here_at_all');
      expect(unknown.status).toBe(404);
      expect(unknown.body.code).toBe('USER_NOT_FOUND');
      expect(
        (await server.request.delete('/api/users/nobody_here_at_all/block').set('Authorization', alice.auth)).status,
      ).toBe(404);
    });

    it('answers 401 without a token on every block route', async () => {
      const bob = await createUser();
      for (const res of [
        await server.request.post(`/api/users/${bob.user.username}/block`),
        await server.request.delete(`/api/users/${bob.user.username}/block`),
        await server.request.get('/api/users/me/blocks'),
      ]) {
        expect(res.status).toBe(401);
        expect(res.body.code).toBe('AUTH_REQUIRED');
      }
    });

    it("lists only the caller's own blocks, newest first; the blocked user does not see the block", async () => {
      const alice = await createUser();
      const bob = await createUser();
      const carol = await createUser();
      await block(alice, bob.user.username).expect(201);
      await block(alice, carol.user.username).expect(201);
      const mine = await server.request.get('/api/users/me/blocks').set('Authorization', alice.auth).expect(200);
      expect(mine.body.count).toBe(2);
      expect(mine.body.data.map((b: { id: number }) => b.id)).toEqual([carol.user.id, bob.user.id]);
      const theirs = await server.request.get('/api/users/me/blocks').set('Authorization', bob.auth).expect(200);
      expect(theirs.body).toEqual({ success: true, count: 0, data: [] });
    });

    it('unblocks with 200 "User unblocked", also when there was no block, and writes nothing to the activity log', async () => {
      const alice = await createUser();
      const bob = await createUser();
      await block(alice, bob.user.username).expect(201);
      const res = await server.request
        .delete(`/api/users/${bob.user.username}/block`)
        .set('Authorization', alice.auth)
        .expect(200);
      expect(res.body).toEqual({ success: true, message: 'User unblocked' });
      await server.request.delete(`/api/users/${bob.user.username}/block`).set('Authorization', alice.auth).expect(200);
      expect(await prisma.userBlock.count({ where: { blockerId: alice.user.id } })).toBe(0);
      expect(await prisma.activityLog.count({ where: { userId: alice.user.id, action: { contains: 'block' } } })).toBe(
        0,
      );
    });
  });

  describe('matches', () => {
    it('refuses a match request within a blocked pair with 403 USER_BLOCKED, whoever asks and whoever blocked', async () => {
      const { event, alice, bob } = await createTrio();
      await block(bob, alice.user.username).expect(201);
      for (const [from, to] of [
        [alice, bob],
        [bob, alice],
      ] as const) {
        const res = await requestMatch(from, to, event.slug);
        expect(res.status).toBe(403);
        expect(res.body).toEqual({ success: false, error: 'You cannot interact with this user', code: 'USER_BLOCKED' });
      }
      expect(await prisma.match.count({ where: { eventId: event.id } })).toBe(0);
    });

    it('checks the target participation (400) before the block (403)', async () => {
      const { event, alice } = await createTrio();
      const outsider = await createUser();
      await block(alice, outsider.user.username).expect(201);
      expect((await requestMatch(alice, outsider, event.slug)).body.code).toBe('TARGET_NOT_PARTICIPANT');
    });

    it("deletes the pair's pending and accepted matches at any event as a cancellation by the blocker, and keeps a completed one", async () => {
      const { event, alice, bob, carol } = await createTrio();
      const other = await createEvent();
      await joinEvent(alice.user, other);
      await joinEvent(bob.user, other);
      const third = await createEvent();
      await joinEvent(alice.user, third);
      await joinEvent(bob.user, third);
      const pending = await insertMatch(event, bob.user, alice.user, 'pending');
      const accepted = await insertMatch(other, alice.user, bob.user, 'accepted');
      const completed = await insertMatch(third, alice.user, bob.user, 'completed');
      const unrelated = await insertMatch(event, alice.user, carol.user, 'accepted');
      const [b, a] = await Promise.all([connect(bob), connect(alice)]);
      expect((await emitAck(b, 'join_private_room', { matchId: accepted.id })).success).toBe(true);

      const cancellations: { matchSlug: string; from: { id: number } }[] = [];
      b.on('match_cancelled', (p) => cancellations.push(p as never));
      const aliceGetsNothing = receivesWithin(a, 'match_cancelled', 800);
      await block(alice, bob.user.username).expect(201);

      const left = await prisma.match.findMany({
        where: { id: { in: [pending.id, accepted.id, completed.id, unrelated.id] } },
        select: { id: true },
      });
      expect(left.map((m) => m.id).sort()).toEqual([completed.id, unrelated.id].sort());
      expect(await prisma.chatRoom.count({ where: { matchId: accepted.id } })).toBe(0);
      for (let i = 0; i < 50 && cancellations.length < 2; i++) await new Promise((r) => setTimeout(r, 50));
      expect(cancellations.map((c) => c.matchSlug).sort()).toEqual([pending.slug, accepted.slug].sort());
      expect(cancellations.every((c) => c.from.id === alice.user.id)).toBe(true);
      expect(await aliceGetsNothing).toBe(false);
      const audits = await prisma.activityLog.findMany({
        where: { resource: { in: [`match:${pending.slug}`, `match:${accepted.slug}`] } },
      });
      expect(audits.map((x) => [x.resource, x.action, x.userId]).sort()).toEqual(
        [
          [`match:${accepted.slug}`, 'match_cancel', alice.user.id],
          // bob requested it from alice: her deleting it is a rejection, as over DELETE /matches/:slug
          [`match:${pending.slug}`, 'match_reject', alice.user.id],
        ].sort(),
      );
      expect((await server.request.get(`/api/matches/${completed.slug}`).set('Authorization', bob.auth)).status).toBe(
        200,
      );
    });

    it('a pending match deleted by its blocking target is audited as a rejection', async () => {
      const { event, alice, bob } = await createTrio();
      const pending = await insertMatch(event, alice.user, bob.user, 'pending');
      await block(bob, alice.user.username).expect(201);
      const audit = await prisma.activityLog.findFirst({ where: { resource: `match:${pending.slug}` } });
      expect(audit).toMatchObject({ action: 'match_reject', userId: bob.user.id });
    });

    it('a block racing with match requests of the pair never leaves a match behind', async () => {
      for (let round = 0; round < 5; round++) {
        const { event, alice, bob } = await createTrio();
        const [blocked, ...requests] = await Promise.all([
          block(alice, bob.user.username),
          requestMatch(bob, alice, event.slug),
          requestMatch(alice, bob, event.slug),
          requestMatch(bob, alice, event.slug),
        ]);
        expect(blocked.status).toBe(201);
        for (const r of requests) expect([201, 403, 409]).toContain(r.status);
        expect(await prisma.match.count({ where: { eventId: event.id } })).toBe(0);
      }
    });

    it('refuses to create the match of an accepted recording suggestion between a blocked pair (USER_BLOCKED), creating nothing', async () => {
      const { event, alice, bob } = await createTrio();
      await block(bob, alice.user.username).expect(201);
      await expect(
        prisma.$transaction((tx) =>
          server.container.matches.createOrReuseAcceptedMatch(systemActor('test'), {
            tx,
            eventId: event.id,
            userAId: alice.user.id,
            userBId: bob.user.id,
            suggestionId: 1,
          }),
        ),
      ).rejects.toMatchObject({ code: 'USER_BLOCKED', status: 403 });
      expect(await prisma.match.count({ where: { eventId: event.id } })).toBe(0);
    });

    it('unblocking allows requests again, but removed matches stay removed', async () => {
      const { event, alice, bob } = await createTrio();
      const pending = await insertMatch(event, alice.user, bob.user, 'pending');
      await block(alice, bob.user.username).expect(201);
      await server.request.delete(`/api/users/${bob.user.username}/block`).set('Authorization', alice.auth).expect(200);
      expect(await prisma.match.count({ where: { id: pending.id } })).toBe(0);
      expect((await requestMatch(bob, alice, event.slug)).status).toBe(201);
    });
  });

  describe('completed match of a blocked pair', () => {
    it('closes the private chat (join and send acks USER_BLOCKED, nothing stored) but keeps its HTTP history', async () => {
      const { event, alice, bob } = await createTrio();
      const match = await insertMatch(event, alice.user, bob.user, 'completed');
      await prisma.message.create({
        data: { roomId: match.chatRoom!.id, userId: bob.user.id, content: 'before the block' },
      });
      await block(bob, alice.user.username).expect(201);
      const [a, b] = await Promise.all([connect(alice), connect(bob)]);
      expect(await emitAck(a, 'join_private_room', { matchId: match.id })).toEqual(blockedAnswer);
      expect(await emitAck(b, 'join_private_room', { matchId: match.id })).toEqual(blockedAnswer);
      expect(await emitAck(a, 'send_private_message', { matchId: match.id, content: 'hello?' })).toEqual(blockedAnswer);
      expect(await prisma.message.count({ where: { roomId: match.chatRoom!.id } })).toBe(1);
      const history = await server.request
        .get(`/api/matches/${match.slug}/messages`)
        .set('Authorization', alice.auth)
        .expect(200);
      expect(history.body.data.map((m: { content: string }) => m.content)).toEqual(['before the block']);
      const listed = await server.request.get('/api/matches').set('Authorization', alice.auth).expect(200);
      expect(listed.body.data.map((m: { slug: string }) => m.slug)).toContain(match.slug);
    });

    it('closes the video hand-off: webrtc_signal acks USER_BLOCKED, nothing relayed; a new transfer is 403; records stay readable', async () => {
      const { event, alice, bob } = await createTrio();
      const match = await insertMatch(event, alice.user, bob.user, 'completed');
      await prisma.videoTransfer.create({
        data: {
          matchId: match.id,
          senderId: alice.user.id,
          receiverId: bob.user.id,
          fileName: 'a.mp4',
          size: BigInt(10),
          sha256: 'a'.repeat(64),
        },
      });
      await block(alice, bob.user.username).expect(201);
      const [a, b] = await Promise.all([connect(alice), connect(bob)]);
      const bobGetsNothing = receivesWithin(b, 'webrtc_signal', 600);
      expect(await emitAck(a, 'webrtc_signal', { matchSlug: match.slug, kind: 'hangup' })).toEqual(blockedAnswer);
      expect(await bobGetsNothing).toBe(false);
      const offer = await server.request
        .post(`/api/matches/${match.slug}/transfers`)
        .set('Authorization', bob.auth)
        .send({ fileName: 'b.mp4', size: 5, sha256: 'b'.repeat(64) });
      expect(offer.status).toBe(403);
      expect(offer.body.code).toBe('USER_BLOCKED');
      const records = await server.request
        .get(`/api/matches/${match.slug}/transfers`)
        .set('Authorization', bob.auth)
        .expect(200);
      expect(records.body.count).toBe(1);
      expect((await server.request.get('/api/webrtc/ice-servers').set('Authorization', bob.auth)).status).toBe(200);
    });
  });

  describe('event chat', () => {
    const joinRoom = async (event: { slug: string }, user: TestUser) => {
      const socket = await connect(user);
      expect((await emitAck(socket, 'join_event_room', event.slug)).success).toBe(true);
      return socket;
    };

    it('does not deliver live messages between a blocked pair, in either direction; everyone else sees both', async () => {
      const { event, alice, bob, carol } = await createTrio();
      await ensureEventRoom(event);
      await block(alice, bob.user.username).expect(201);
      const [a, b, c] = [await joinRoom(event, alice), await joinRoom(event, bob), await joinRoom(event, carol)];

      const aliceMissesBob = receivesWithin(a, 'event_message', 700);
      const carolGetsBob = nextEvent<{ content: string }>(c, 'event_message');
      const bobGetsOwn = nextEvent<{ content: string }>(b, 'event_message');
      expect((await emitAck(b, 'send_event_message', { content: 'from bob' })).success).toBe(true);
      expect((await carolGetsBob).content).toBe('from bob');
      expect((await bobGetsOwn).content).toBe('from bob');
      expect(await aliceMissesBob).toBe(false);

      const bobMissesAlice = receivesWithin(b, 'event_message', 700);
      const carolGetsAlice = nextEvent<{ content: string }>(c, 'event_message');
      expect((await emitAck(a, 'send_event_message', { content: 'from alice' })).success).toBe(true);
      expect((await carolGetsAlice).content).toBe('from alice');
      expect(await bobMissesAlice).toBe(false);
    });

    it("leaves the other's messages out of both histories, also those sent before the block, filtering before the limit", async () => {
      const { event, alice, bob, carol } = await createTrio();
      const room = await ensureEventRoom(event);
      await prisma.message.create({ data: { roomId: room.id, userId: carol.user.id, content: 'carol 1' } });
      await prisma.message.create({ data: { roomId: room.id, userId: alice.user.id, content: 'alice 1' } });
      for (let i = 0; i < 5; i++)
        await prisma.message.create({ data: { roomId: room.id, userId: bob.user.id, content: `bob ${i}` } });
      await block(bob, alice.user.username).expect(201);

      const aliceView = await server.request
        .get(`/api/events/${event.slug}/messages?limit=2`)
        .set('Authorization', alice.auth)
        .expect(200);
      expect(aliceView.body.data.map((m: { content: string }) => m.content)).toEqual(['carol 1', 'alice 1']);
      const bobView = await server.request
        .get(`/api/events/${event.slug}/messages`)
        .set('Authorization', bob.auth)
        .expect(200);
      expect(bobView.body.data.map((m: { content: string }) => m.content)).not.toContain('alice 1');
      const carolView = await server.request
        .get(`/api/events/${event.slug}/messages`)
        .set('Authorization', carol.auth)
        .expect(200);
      expect(carolView.body.data).toHaveLength(7);

      const socket = await connect(alice);
      const history = nextEvent<{ content: string }[]>(socket, 'message_history');
      await emitAck(socket, 'join_event_room', event.slug);
      expect((await history).map((m) => m.content)).toEqual(['carol 1', 'alice 1']);
    });

    it('unblocking restores the history', async () => {
      const { event, alice, bob } = await createTrio();
      const room = await ensureEventRoom(event);
      await prisma.message.create({ data: { roomId: room.id, userId: bob.user.id, content: 'bob says hi' } });
      await block(alice, bob.user.username).expect(201);
      const hidden = await server.request
        .get(`/api/events/${event.slug}/messages`)
        .set('Authorization', alice.auth)
        .expect(200);
      expect(hidden.body.data).toEqual([]);
      await server.request.delete(`/api/users/${bob.user.username}/block`).set('Authorization', alice.auth).expect(200);
      const back = await server.request
        .get(`/api/events/${event.slug}/messages`)
        .set('Authorization', alice.auth)
        .expect(200);
      expect(back.body.data.map((m: { content: string }) => m.content)).toEqual(['bob says hi']);
    });
  });

  describe('profiles', () => {
    it("hides the blocker's profile and ratings from the blocked user with the unknown-user 404; the blocker still sees the other", async () => {
      const alice = await createUser();
      const bob = await createUser();
      await block(alice, bob.user.username).expect(201);
      for (const path of [`/api/users/${alice.user.username}`, `/api/users/${alice.user.username}/ratings`]) {
        const res = await server.request.get(path).set('Authorization', bob.auth);
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ success: false, error: 'User not found', code: 'USER_NOT_FOUND' });
      }
      expect(
        (await server.request.get(`/api/users/${bob.user.username}`).set('Authorization', alice.auth)).status,
      ).toBe(200);
      expect(
        (await server.request.get(`/api/users/${bob.user.username}/ratings`).set('Authorization', alice.auth)).status,
      ).toBe(200);
    });
  });

  it('is silent: the blocked user receives no socket event of the block or the unblock', async () => {
    const alice = await createUser();
    const bob = await createUser();
    const b = await connect(bob);
    const events: string[] = [];
    b.onAny((name: string) => events.push(name));
    await block(alice, bob.user.username).expect(201);
    await server.request.delete(`/api/users/${bob.user.username}/block`).set('Authorization', alice.auth).expect(200);
    await new Promise((r) => setTimeout(r, 500));
    expect(events).toEqual([]);
  });
});

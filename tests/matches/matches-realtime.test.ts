import { prisma } from '../helpers/db';
import { createUser, joinEvent } from '../helpers/factories';
import { createTrio, insertMatch } from '../helpers/matches';
import { useTestServer } from '../helpers/server';
import { emitAck, nextEvent, receivesWithin, useSocketClients } from '../helpers/socket';

describe('match notifications and private chat over Socket.IO', () => {
  const server = useTestServer();
  const connect = useSocketClients(() => server.url);

  it('request, accept and cancel notify only the other member, with matchSlug, event and from', async () => {
    const { event, alice, bob, carol } = await createTrio({ alice: { firstName: 'Alice' } });
    const [a, b, c] = await Promise.all([connect(alice.token), connect(bob.token), connect(carol.token)]);

    const bobReceived = nextEvent(b, 'match_request_received');
    const aliceNotReceived = receivesWithin(a, 'match_request_received', 400);
    const carolNotReceived = receivesWithin(c, 'match_request_received', 400);
    const created = await server.request
      .post('/api/matches')
      .set('Authorization', alice.auth)
      .send({ targetUserId: bob.user.id, eventSlug: event.slug });
    expect(created.status).toBe(201);
    const slug = created.body.data.slug;
    expect(await bobReceived).toEqual({
      matchSlug: slug,
      event: { slug: event.slug, name: event.name },
      from: {
        id: alice.user.id,
        username: alice.user.username,
        avatar: alice.user.avatar,
        firstName: 'Alice',
        lastName: null,
      },
    });
    expect(await aliceNotReceived).toBe(false);
    expect(await carolNotReceived).toBe(false);

    const aliceAccepted = nextEvent(a, 'match_accepted');
    const bobNoAccepted = receivesWithin(b, 'match_accepted', 400);
    const carolNoAccepted = receivesWithin(c, 'match_accepted', 400);
    await server.request.put(`/api/matches/${slug}/accept`).set('Authorization', bob.auth).expect(200);
    expect(await aliceAccepted).toMatchObject({
      matchSlug: slug,
      event: { slug: event.slug },
      from: { id: bob.user.id },
    });
    expect(await bobNoAccepted).toBe(false);
    expect(await carolNoAccepted).toBe(false);

    const bobCancelled = nextEvent(b, 'match_cancelled');
    const aliceNoCancel = receivesWithin(a, 'match_cancelled', 400);
    const carolNoCancel = receivesWithin(c, 'match_cancelled', 400);
    await server.request.delete(`/api/matches/${slug}`).set('Authorization', alice.auth).expect(200);
    expect(await bobCancelled).toMatchObject({ matchSlug: slug, from: { id: alice.user.id } });
    expect(await aliceNoCancel).toBe(false);
    expect(await carolNoCancel).toBe(false);
  });

  it('private messages reach only the two members; a third user can neither join nor send nor receive', async () => {
    const { event, alice, bob, carol } = await createTrio();
    const m = await insertMatch(event, alice.user, bob.user, 'accepted');
    const earlier = await prisma.message.create({
      data: { roomId: m.chatRoom!.id, userId: bob.user.id, content: 'earlier' },
    });
    const [a, b, c] = await Promise.all([connect(alice.token), connect(bob.token), connect(carol.token)]);

    const joinA = await emitAck<{ matchId: number; roomId: number; messages: { id: number; content: string }[] }>(
      a,
      'join_private_room',
      { matchId: m.id },
    );
    expect(joinA.success).toBe(true);
    if (!joinA.success) throw new Error('join failed');
    expect(joinA.data).toMatchObject({ matchId: m.id, roomId: m.chatRoom!.id });
    expect(joinA.data!.messages.map((x) => x.id)).toEqual([earlier.id]);
    expect((await emitAck(b, 'join_private_room', { matchId: m.id })).success).toBe(true);

    const carolJoin = await emitAck(c, 'join_private_room', { matchId: m.id });
    expect(carolJoin).toEqual({ success: false, error: 'Match not found', code: 'MATCH_NOT_FOUND' });

    const bobGets = nextEvent<{ content: string; matchId: number; userId: number }>(b, 'private_message');
    const aliceGets = nextEvent<{ content: string }>(a, 'private_message');
    const carolGets = receivesWithin(c, 'private_message', 500);
    const sent = await emitAck<{ id: number }>(a, 'send_private_message', { matchId: m.id, content: 'hello bob' });
    expect(sent.success).toBe(true);
    expect(await bobGets).toMatchObject({
      content: 'hello bob',
      matchId: m.id,
      userId: alice.user.id,
      username: alice.user.username,
      roomId: m.chatRoom!.id,
    });
    expect((await aliceGets).content).toBe('hello bob');
    expect(await carolGets).toBe(false);

    const carolSend = await emitAck(c, 'send_private_message', { matchId: m.id, content: 'intrusion' });
    expect(carolSend).toEqual({ success: false, error: 'Match not found', code: 'MATCH_NOT_FOUND' });
    // without an ack callback the error arrives as error_message
    const carolError = nextEvent<{ error: string }>(c, 'error_message');
    c.emit('send_private_message', { matchId: m.id, content: 'again' });
    expect(await carolError).toEqual({ error: 'Match not found' });

    const stored = await prisma.message.findMany({ where: { roomId: m.chatRoom!.id }, orderBy: { id: 'asc' } });
    expect(stored.map((x) => x.content)).toEqual(['earlier', 'hello bob']);
    // and the HTTP history returns it
    const history = await server.request.get(`/api/matches/${m.slug}/messages`).set('Authorization', bob.auth);
    expect(history.body.data.map((x: { content: string }) => x.content)).toEqual(['earlier', 'hello bob']);
  });

  it('refuses pending matches, bad payloads, bad content and unverified senders', async () => {
    const { event, alice, bob } = await createTrio();
    const pending = await insertMatch(event, alice.user, bob.user);
    const a = await connect(alice.token);
    expect(await emitAck(a, 'join_private_room', { matchId: pending.id })).toEqual({
      success: false,
      error: 'Private chat is available only for accepted matches',
      code: 'MATCH_NOT_ACCEPTED',
    });
    expect(await emitAck(a, 'send_private_message', { matchId: pending.id, content: 'hi' })).toMatchObject({
      success: false,
    });
    expect(await emitAck(a, 'join_private_room', { matchId: 'x' })).toEqual({
      success: false,
      error: 'matchId must be a positive integer',
      code: 'VALIDATION_ERROR',
    });
    expect(await emitAck(a, 'join_private_room', null)).toMatchObject({ success: false });
    expect(await emitAck(a, 'join_private_room', { matchId: 99999999 })).toEqual({
      success: false,
      error: 'Match not found',
      code: 'MATCH_NOT_FOUND',
    });

    const dave = await createUser({ emailVerified: false });
    await joinEvent(dave.user, event);
    const m = await insertMatch(event, alice.user, dave.user, 'accepted');
    expect(await emitAck(a, 'send_private_message', { matchId: m.id, content: '   ' })).toMatchObject({
      success: false,
      error: 'Message content must not be empty',
      code: 'VALIDATION_ERROR',
    });
    expect(await emitAck(a, 'send_private_message', { matchId: m.id, content: 'x'.repeat(2001) })).toMatchObject({
      success: false,
    });
    const d = await connect(dave.token);
    expect((await emitAck(d, 'join_private_room', { matchId: m.id })).success).toBe(true);
    expect(await emitAck(d, 'send_private_message', { matchId: m.id, content: 'hi' })).toEqual({
      success: false,
      error: 'Email verification required',
      code: 'EMAIL_NOT_VERIFIED',
    });
    expect(await prisma.message.count({ where: { roomId: m.chatRoom!.id } })).toBe(0);
  });

  it('after the match is deleted its members no longer receive or send private messages', async () => {
    const { event, alice, bob } = await createTrio();
    const m = await insertMatch(event, alice.user, bob.user, 'accepted');
    const [a, b] = await Promise.all([connect(alice.token), connect(bob.token)]);
    await emitAck(a, 'join_private_room', { matchId: m.id });
    await emitAck(b, 'join_private_room', { matchId: m.id });
    await server.request.delete(`/api/matches/${m.slug}`).set('Authorization', bob.auth).expect(200);
    expect(await emitAck(a, 'send_private_message', { matchId: m.id, content: 'still there?' })).toEqual({
      success: false,
      error: 'Match not found',
      code: 'MATCH_NOT_FOUND',
    });
  });

  it('limits floods of private messages like the event chat: a burst of 10 passes, then CHAT_FLOOD', async () => {
    const { event, alice, bob } = await createTrio();
    const m = await insertMatch(event, alice.user, bob.user, 'accepted');
    const a = await connect(alice.token);
    // all 14 at once: the limiter decides synchronously on arrival, so refill during the test is negligible
    const results = await Promise.all(
      Array.from({ length: 14 }, (_, i) =>
        emitAck(a, 'send_private_message', { matchId: m.id, content: `flood ${i}` }),
      ),
    );
    const refused = results.filter((r) => !r.success);
    expect(refused.length).toBeGreaterThanOrEqual(3);
    expect(refused[0]).toEqual({ success: false, error: 'You are sending messages too fast', code: 'CHAT_FLOOD' });
    expect(await prisma.message.count({ where: { roomId: m.chatRoom!.id } })).toBe(14 - refused.length);
  });
});

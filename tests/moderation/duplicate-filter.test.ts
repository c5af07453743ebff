import { prisma } from '../helpers/db';
import { createEvent, createUser, ensureEventRoom, joinEvent, type TestUser } from '../helpers/factories';
import { createTrio, insertMatch } from '../helpers/matches';
import { useTestServer } from '../helpers/server';
import { emitAck, nextEvent, receivesWithin, useSocketClients } from '../helpers/socket';

const duplicate = { success: false, error: 'Duplicate message', code: 'DUPLICATE_MESSAGE' };

describe('duplicate filter', () => {
  const server = useTestServer();
  const connect = useSocketClients(() => server.url);
  const inRoom = async (event: { slug: string }, user: TestUser) => {
    const socket = await connect(user);
    expect((await emitAck(socket, 'join_event_room', event.slug)).success).toBe(true);
    return socket;
  };

  it('refuses the same text (trimmed, any case) in the same event room within 30 s: nothing stored or broadcast', async () => {
    const { event, alice, bob } = await createTrio();
    const room = await ensureEventRoom(event);
    const [a, b] = [await inRoom(event, alice), await inRoom(event, bob)];
    // listening before the message is sent: the sender's acknowledgement may arrive after the copies
    const bobGetsTheFirst = nextEvent(b, 'event_message');
    expect((await emitAck(a, 'send_event_message', { content: 'Anyone for a WCS heat?' })).success).toBe(true);
    await bobGetsTheFirst;
    const bobGetsNothing = receivesWithin(b, 'event_message', 600);
    expect(await emitAck(a, 'send_event_message', { content: '  anyone for a wcs HEAT?\n' })).toEqual(duplicate);
    expect(await bobGetsNothing).toBe(false);
    expect(await prisma.message.count({ where: { roomId: room.id, userId: alice.user.id } })).toBe(1);
  });

  it('trims as String.prototype.trim does (non-breaking and ideographic spaces too) but keeps inner differences', async () => {
    const { event, alice } = await createTrio();
    await ensureEventRoom(event);
    const a = await inRoom(event, alice);
    expect((await emitAck(a, 'send_event_message', { content: 'Zażółć gęślą' })).success).toBe(true);
    expect(await emitAck(a, 'send_event_message', { content: '\u00a0ZAŻÓŁĆ GĘŚLĄ\u3000\ufeff' })).toEqual(duplicate);
    expect((await emitAck(a, 'send_event_message', { content: 'Zażółć  gęślą' })).success).toBe(true);
  });

  it('lets other users send the same text, and the same user send it in another room', async () => {
    const { event, alice, bob } = await createTrio();
    const other = await createEvent();
    await joinEvent(alice.user, other);
    await ensureEventRoom(event);
    await ensureEventRoom(other);
    const a = await inRoom(event, alice);
    const b = await inRoom(event, bob);
    expect((await emitAck(a, 'send_event_message', { content: 'hello' })).success).toBe(true);
    expect((await emitAck(b, 'send_event_message', { content: 'hello' })).success).toBe(true);
    expect((await emitAck(a, 'join_event_room', other.slug)).success).toBe(true);
    expect((await emitAck(a, 'send_event_message', { content: 'hello' })).success).toBe(true);
  });

  it('accepts the text again once the stored copy is 30 s old', async () => {
    const { event, alice } = await createTrio();
    const room = await ensureEventRoom(event);
    const a = await inRoom(event, alice);
    const first = await emitAck<{ id: number }>(a, 'send_event_message', { content: 'again later' });
    expect(first.success).toBe(true);
    expect(await emitAck(a, 'send_event_message', { content: 'again later' })).toEqual(duplicate);
    await prisma.message.updateMany({
      where: { roomId: room.id, userId: alice.user.id },
      data: { createdAt: new Date(Date.now() - 31_000) },
    });
    expect((await emitAck(a, 'send_event_message', { content: 'again later' })).success).toBe(true);
  });

  it('stores exactly one of ten identical messages sent at once', async () => {
    const { event, alice } = await createTrio();
    const room = await ensureEventRoom(event);
    const a = await inRoom(event, alice);
    const acks = await Promise.all(
      Array.from({ length: 10 }, () => emitAck(a, 'send_event_message', { content: 'spam spam' })),
    );
    expect(acks.filter((x) => x.success)).toHaveLength(1);
    expect(
      acks.filter((x) => !x.success).every((x) => !x.success && ['DUPLICATE_MESSAGE', 'CHAT_FLOOD'].includes(x.code)),
    ).toBe(true);
    expect(await prisma.message.count({ where: { roomId: room.id, userId: alice.user.id } })).toBe(1);
  });

  it('applies to private messages too', async () => {
    const { event, alice, bob } = await createTrio();
    const match = await insertMatch(event, alice.user, bob.user, 'accepted');
    const a = await connect(alice);
    expect((await emitAck(a, 'send_private_message', { matchId: match.id, content: 'see you at 8' })).success).toBe(
      true,
    );
    expect(await emitAck(a, 'send_private_message', { matchId: match.id, content: 'SEE YOU AT 8 ' })).toEqual(
      duplicate,
    );
    expect(await prisma.message.count({ where: { roomId: match.chatRoom!.id } })).toBe(1);
    const b = await connect(bob);
    expect((await emitAck(b, 'send_private_message', { matchId: match.id, content: 'see you at 8' })).success).toBe(
      true,
    );
  });

  it('is checked after the content rule', async () => {
    const user = await createUser();
    const event = await createEvent();
    await joinEvent(user.user, event);
    await ensureEventRoom(event);
    const s = await inRoom(event, user);
    expect(await emitAck(s, 'send_event_message', { content: '   ' })).toMatchObject({
      success: false,
      code: 'VALIDATION_ERROR',
    });
  });
});

import { AppError } from '../../src/lib/errors';
import { createTestContainer } from '../helpers/container';
import { prisma } from '../helpers/db';
import { createTrio, insertMatch } from '../helpers/matches';
import { actorFor } from '../helpers/actor';

/** PrivateChatService.sendMessage with a frozen clock: the flood limiter never refills. */
describe('PrivateChatService.sendMessage', () => {
  const now = new Date('2030-06-01T12:00:00.000Z');
  const container = createTestContainer({}, { clock: { now: () => now } });
  afterAll(() => container.close());

  const send = (user: Parameters<typeof actorFor>[0], matchId: number, content: string) =>
    container.privateChat.sendMessage(actorFor(user), { matchId, content });

  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (err: unknown) => (err instanceof AppError ? err.code : err),
    );

  it('lets a burst of 10 pass and refuses the 11th with CHAT_FLOOD, storing nothing', async () => {
    const { event, alice, bob } = await createTrio();
    const m = await insertMatch(event, alice.user, bob.user, 'accepted');
    for (let i = 0; i < 10; i++) await send(alice.user, m.id, `burst ${i}`);
    expect(await refusal(send(alice.user, m.id, 'one more'))).toBe('CHAT_FLOOD');
    expect(await prisma.message.count({ where: { roomId: m.chatRoom!.id } })).toBe(10);
    // the limit is per user: the partner still may send
    await send(bob.user, m.id, 'hi');
  });

  it("draws on the container's one chat flood limiter, shared with the event chat", async () => {
    const { event, alice, bob } = await createTrio();
    const m = await insertMatch(event, alice.user, bob.user, 'accepted');
    for (let i = 0; i < 10; i++) expect(await container.chatFlood.take(alice.user.id)).toBe(true);
    expect(await refusal(send(alice.user, m.id, 'hello'))).toBe('CHAT_FLOOD');
    expect(await prisma.message.count({ where: { roomId: m.chatRoom!.id } })).toBe(0);
  });

  it('checks the content before the flood limit: an empty message costs no token', async () => {
    const { event, alice, bob } = await createTrio();
    const m = await insertMatch(event, alice.user, bob.user, 'accepted');
    for (let i = 0; i < 12; i++) expect(await refusal(send(alice.user, m.id, '  '))).toBe('VALIDATION_ERROR');
    await send(alice.user, m.id, 'real');
    expect(await prisma.message.count({ where: { roomId: m.chatRoom!.id } })).toBe(1);
  });

  it('reads the verified e-mail from the database, not from the caller', async () => {
    const { event, alice, bob } = await createTrio();
    const m = await insertMatch(event, alice.user, bob.user, 'accepted');
    await prisma.user.update({ where: { id: alice.user.id }, data: { emailVerified: false } });
    expect(await refusal(send(alice.user, m.id, 'hi'))).toBe('EMAIL_NOT_VERIFIED');
    expect(await prisma.message.count({ where: { roomId: m.chatRoom!.id } })).toBe(0);
  });
});

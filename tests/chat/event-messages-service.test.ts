import type { Container } from '../../src/container';
import { systemActor } from '../../src/lib/actor';
import type { Clock } from '../../src/lib/clock';
import { actorFor } from '../helpers/actor';
import { createTestContainer } from '../helpers/container';
import { prisma } from '../helpers/db';
import { createEvent, createUser, joinEvent } from '../helpers/factories';

/** A clock the test moves by hand. */
function manualClock(start = new Date('2027-05-01T10:00:00Z')): Clock & { advance(ms: number): void } {
  let now = start.getTime();
  return { now: () => new Date(now), advance: (ms) => (now += ms) };
}

async function participantInRoom(userOverrides: { emailVerified?: boolean } = {}) {
  const event = await createEvent({ withChatRoom: true });
  const { user } = await createUser(userOverrides);
  await joinEvent(user, event);
  return { event, user, joined: { eventId: event.id, slug: event.slug } };
}

describe('EventMessagesService.postMessage', () => {
  let container: Container;
  const clock = manualClock();
  let allow = true;
  beforeAll(() => {
    container = createTestContainer({}, { clock, chatFlood: { take: async () => allow } });
  });
  afterAll(async () => {
    await container.close();
  });
  const actorOf = (user: { id: number; username: string }) => ({
    ...systemActor('test'),
    userId: user.id,
    username: user.username,
  });

  it('refuses whitespace-only content with 400 before storing anything', async () => {
    const { user, joined } = await participantInRoom();
    await expect(
      container.eventMessages.postMessage(actorOf(user), { joined, content: '   \n ' }),
    ).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      status: 400,
    });
    expect(await prisma.message.count({ where: { userId: user.id } })).toBe(0);
  });

  it('checks the verified e-mail against the database, not the identity the socket was opened with', async () => {
    const { user, joined } = await participantInRoom();
    await prisma.user.update({ where: { id: user.id }, data: { emailVerified: false } });
    await expect(container.eventMessages.postMessage(actorOf(user), { joined, content: 'hi' })).rejects.toMatchObject({
      code: 'EMAIL_NOT_VERIFIED',
    });
  });

  it('logs a flood once per user and minute, and again after a minute', async () => {
    const { user, joined } = await participantInRoom();
    allow = false;
    try {
      for (let i = 0; i < 3; i++) {
        await expect(
          container.eventMessages.postMessage(actorOf(user), { joined, content: 'x' }),
        ).rejects.toMatchObject({
          code: 'CHAT_FLOOD',
          status: 429,
        });
      }
      const logs = () => prisma.activityLog.count({ where: { userId: user.id, action: 'chat_flood_limited' } });
      expect(await logs()).toBe(1);
      clock.advance(61_000);
      await expect(container.eventMessages.postMessage(actorOf(user), { joined, content: 'x' })).rejects.toMatchObject({
        code: 'CHAT_FLOOD',
      });
      expect(await logs()).toBe(2);
      const log = await prisma.activityLog.findFirst({ where: { userId: user.id, action: 'chat_flood_limited' } });
      expect(log).toMatchObject({ category: 'chat', success: false, resource: `event:${joined.slug}` });
    } finally {
      allow = true;
    }
  });

  it('answers NOT_IN_ROOM without a joined room and NOT_PARTICIPANT after leaving', async () => {
    const { user, event, joined } = await participantInRoom();
    await expect(
      container.eventMessages.postMessage(actorOf(user), { joined: undefined, content: 'x' }),
    ).rejects.toMatchObject({
      code: 'NOT_IN_ROOM',
    });
    await container.checkin.leave(actorFor(user), { slug: event.slug });
    await expect(container.eventMessages.postMessage(actorOf(user), { joined, content: 'x' })).rejects.toMatchObject({
      code: 'NOT_PARTICIPANT',
      status: 403,
    });
  });

  it('stores the message exactly as sent and returns the room to broadcast to', async () => {
    const { user, joined } = await participantInRoom();
    const { eventId, message } = await container.eventMessages.postMessage(actorOf(user), {
      joined,
      content: '  <b>hi</b> ',
    });
    expect(eventId).toBe(joined.eventId);
    expect(message).toMatchObject({ userId: user.id, username: user.username, content: '  <b>hi</b> ' });
    expect(await prisma.message.findUniqueOrThrow({ where: { id: message.id } })).toMatchObject({
      content: '  <b>hi</b> ',
    });
  });
});

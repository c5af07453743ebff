import { prisma } from './db';
import { randomToken } from '../../src/lib/ids';
import { createUser, type TestUser } from './factories';

/** The event's check-in token, created directly (as GET details would). */
export async function checkinTokenFor(event: { id: number }): Promise<string> {
  const row = await prisma.eventCheckinToken.upsert({
    where: { eventId: event.id },
    update: {},
    create: { eventId: event.id, token: randomToken(24) },
  });
  return row.token;
}

/** `count` users created in parallel batches. */
export async function createUsers(count: number): Promise<TestUser[]> {
  const users: TestUser[] = [];
  for (let i = 0; i < count; i += 25) {
    users.push(...(await Promise.all(Array.from({ length: Math.min(25, count - i) }, () => createUser()))));
  }
  return users;
}

export async function participantRows(eventId: number): Promise<number> {
  return prisma.eventParticipant.count({ where: { eventId } });
}

export async function storedCount(eventId: number): Promise<number> {
  return (await prisma.event.findUniqueOrThrow({ where: { id: eventId } })).participantsCount;
}

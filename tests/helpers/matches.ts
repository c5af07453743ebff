import type { Event } from '../../src/generated/prisma/client';
import { prisma } from './db';
import { randomSlug } from '../../src/lib/ids';
import { createEvent, createUser, joinEvent, type TestUser, type UserOverrides } from './factories';

export interface Trio {
  event: Event;
  /** requester */
  alice: TestUser;
  /** target */
  bob: TestUser;
  /** a third participant of the same event, never part of the pair's match */
  carol: TestUser;
}

/** An event with three participants. */
export async function createTrio(
  overrides: { alice?: UserOverrides; bob?: UserOverrides; carol?: UserOverrides } = {},
): Promise<Trio> {
  const event = await createEvent();
  const alice = await createUser(overrides.alice);
  const bob = await createUser(overrides.bob);
  const carol = await createUser(overrides.carol);
  for (const u of [alice, bob, carol]) await joinEvent(u.user, event);
  return { event, alice, bob, carol };
}

/** A match written directly (bypassing the API), with its private room when accepted/completed. */
export async function insertMatch(
  event: { id: number },
  requester: { id: number },
  target: { id: number },
  status: 'pending' | 'accepted' | 'completed' = 'pending',
) {
  return prisma.match.create({
    data: {
      slug: randomSlug(),
      eventId: event.id,
      user1Id: requester.id,
      user2Id: target.id,
      status,
      respondedAt: status === 'pending' ? null : new Date(),
      ...(status === 'pending' ? {} : { chatRoom: { create: { type: 'private' } } }),
    },
    include: { chatRoom: true },
  });
}

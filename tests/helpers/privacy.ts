import type { Event } from '../../src/generated/prisma/client';
import { prisma } from './db';
import { createAdmin, createEvent, createUser, ensureEventRoom, joinEvent, type TestUser } from './factories';
import { insertMatch } from './matches';
import { heat, runMatching } from './matching';
import { api } from './server';

/**
 * A user with a full history at one event (tests/privacy): verified, checked in with a heat,
 * event-chat messages, an accepted match with private messages and a transfer record, ratings
 * both ways, a pending match request, recording suggestions from a real matching run (as dancer,
 * and as recorder in every state: pinned pending, accepted, rejected), a matching run the user
 * triggered, a block and activity-log entries with an IP address.
 *
 * `dana` is the subject; `partner` shares the accepted match and the ratings; `carol` got a
 * pending request from dana; `erin` only dances; `admin` ran matching.
 */
export interface History {
  event: Event;
  admin: TestUser;
  dana: TestUser;
  partner: TestUser;
  carol: TestUser;
  erin: TestUser;
  roomId: number;
  danaMessageIds: number[];
  partnerMessageId: number;
  match: { id: number; slug: string; roomId: number };
  pendingMatch: { id: number; slug: string };
  transferId: number;
  ratingGivenId: number;
  ratingReceivedId: number;
  heats: { dana: number; partner: number; carol: number; erin: number };
  /** suggestion ids by the heat's dancer; dana records partner's (pending, pinned), carol's (accepted), erin's (rejected) */
  suggestions: { dana: number; partner: number; carol: number; erin: number };
  runByDanaId: string;
}

export async function createHistory(): Promise<History> {
  const event = await createEvent({ withChatRoom: true });
  const admin = await createAdmin();
  const dana = await createUser({ firstName: 'Dana', city: 'Lyon', registryId: '4242' });
  const partner = await createUser({ firstName: 'Pat' });
  const carol = await createUser({ firstName: 'Carol' });
  const erin = await createUser({ firstName: 'Erin' });
  await joinEvent(dana.user, event, { competitorNumber: '101' });
  for (const u of [partner, carol, erin]) await joinEvent(u.user, event);
  const heats = {
    dana: (await heat(dana, event, { n: 1 })).id,
    partner: (await heat(partner, event, { n: 4 })).id,
    carol: (await heat(carol, event, { n: 7 })).id,
    erin: (await heat(erin, event, { n: 9 })).id,
  };

  const room = await ensureEventRoom(event);
  const danaMessageIds: number[] = [];
  for (const content of ['hello from dana', 'anyone for a J&J?']) {
    danaMessageIds.push((await prisma.message.create({ data: { roomId: room.id, userId: dana.user.id, content } })).id);
  }
  const partnerMessageId = (
    await prisma.message.create({ data: { roomId: room.id, userId: partner.user.id, content: 'hi dana' } })
  ).id;

  const accepted = await insertMatch(event, dana.user, partner.user, 'accepted');
  const matchRoomId = accepted.chatRoom!.id;
  await prisma.message.create({ data: { roomId: matchRoomId, userId: dana.user.id, content: 'private from dana' } });
  await prisma.message.create({
    data: { roomId: matchRoomId, userId: partner.user.id, content: 'private from partner' },
  });
  const transfer = await prisma.videoTransfer.create({
    data: {
      matchId: accepted.id,
      senderId: dana.user.id,
      receiverId: partner.user.id,
      fileName: 'heat1.mp4',
      size: 1234n,
      sha256: 'a'.repeat(64),
      status: 'completed',
    },
  });
  const given = await prisma.rating.create({
    data: {
      matchId: accepted.id,
      raterId: dana.user.id,
      ratedId: partner.user.id,
      eventId: event.id,
      score: 5,
      comment: 'Great lead',
      wouldCollaborateAgain: true,
    },
  });
  const received = await prisma.rating.create({
    data: {
      matchId: accepted.id,
      raterId: partner.user.id,
      ratedId: dana.user.id,
      eventId: event.id,
      score: 3,
      comment: 'Fine',
      wouldCollaborateAgain: false,
    },
  });
  const pending = await insertMatch(event, dana.user, carol.user, 'pending');

  // a real run, then each heat's row set to the state the test needs
  await runMatching(event, admin);
  const rowOf = async (heatId: number) => prisma.recordingSuggestion.findFirstOrThrow({ where: { heatId } });
  const set = async (heatId: number, recorderId: number, status: string, pinned = false) => {
    const row = await rowOf(heatId);
    await prisma.recordingSuggestion.update({
      where: { id: row.id },
      data: {
        recorderId,
        status,
        pinned,
        unfilledReason: null,
        why: { locality: 'anywhere', optOut: false, recorderBalance: 0, pinned },
      },
    });
    return row.id;
  };
  const suggestions = {
    dana: await set(heats.dana, partner.user.id, 'pending'),
    partner: await set(heats.partner, dana.user.id, 'pending', true),
    carol: await set(heats.carol, dana.user.id, 'accepted'),
    erin: await set(heats.erin, dana.user.id, 'rejected'),
  };
  const run = await prisma.matchingRun.create({
    data: {
      eventId: event.id,
      trigger: 'manual',
      status: 'success',
      triggeredById: dana.user.id,
      finishedAt: new Date(),
    },
  });
  await prisma.userBlock.create({ data: { blockerId: dana.user.id, blockedId: erin.user.id } });
  await prisma.userBlock.create({ data: { blockerId: carol.user.id, blockedId: dana.user.id } });

  // activity-log entries of dana's own, with her address
  const profile = await api()
    .patch('/api/users/me')
    .set('Authorization', dana.auth)
    .set('X-Forwarded-For', '203.0.113.7')
    .send({ lastName: 'Doe' });
  if (profile.status !== 200) throw new Error(`profile update: ${profile.status}`);

  return {
    event,
    admin,
    dana,
    partner,
    carol,
    erin,
    roomId: room.id,
    danaMessageIds,
    partnerMessageId,
    match: { id: accepted.id, slug: accepted.slug, roomId: matchRoomId },
    pendingMatch: { id: pending.id, slug: pending.slug },
    transferId: transfer.id,
    ratingGivenId: given.id,
    ratingReceivedId: received.id,
    heats,
    suggestions,
    runByDanaId: run.id,
  };
}

import type { Prisma } from '../../generated/prisma/client.js';
import { randomSlug } from '../../lib/ids.js';

type Db = Prisma.TransactionClient;

/**
 * TEMPORARY private stand-in for `createOrReuseAcceptedMatch` of
 * src/modules/matches/matches.service.ts (written in the matches branch); replace the
 * import at merge. Inside the caller's transaction: the match of the two users at the
 * event (either direction) is reused — a pending one is accepted and gets its private
 * room — or a new accepted match (source "auto", linked to the suggestion) with its
 * private room is created. userA is the requester side (the dancer).
 */
export async function createOrReuseAcceptedMatch(
  tx: Db,
  args: { eventId: number; userAId: number; userBId: number; suggestionId: number },
): Promise<{ match: { id: number; slug: string; status: string }; roomId: number; created: boolean; accepted: boolean }> {
  const { eventId, userAId, userBId, suggestionId } = args;
  const existing = await tx.match.findFirst({
    where: {
      eventId,
      OR: [
        { user1Id: userAId, user2Id: userBId },
        { user1Id: userBId, user2Id: userAId },
      ],
    },
    include: { chatRoom: true },
  });
  if (existing) {
    const wasPending = existing.status !== 'accepted';
    const match = wasPending
      ? await tx.match.update({ where: { id: existing.id }, data: { status: 'accepted', respondedAt: new Date() } })
      : existing;
    const room = existing.chatRoom ?? (await tx.chatRoom.create({ data: { type: 'private', matchId: existing.id } }));
    return { match, roomId: room.id, created: false, accepted: wasPending };
  }
  const match = await tx.match.create({
    data: {
      slug: randomSlug(),
      eventId,
      user1Id: userAId,
      user2Id: userBId,
      status: 'accepted',
      source: 'auto',
      suggestionId,
      respondedAt: new Date(),
    },
  });
  const room = await tx.chatRoom.create({ data: { type: 'private', matchId: match.id } });
  return { match, roomId: room.id, created: true, accepted: true };
}

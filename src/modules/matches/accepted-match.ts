import type { Prisma } from '../../generated/prisma/client.js';
import { AppError } from '../../lib/errors.js';
import { randomSlug } from '../../lib/ids.js';
import { isBlockedPair, lockUserPair } from '../moderation/blocks.views.js';
import { lockPair, matchInclude, type MatchWithRelations, type Tx } from './match-records.js';

export interface AcceptedMatchInput {
  /** the caller's transaction */
  tx: Tx;
  eventId: number;
  /** becomes user1 (initiator) of a new match: the dancer of the suggestion */
  userAId: number;
  userBId: number;
  suggestionId: number;
}

/** MatchesService.createOrReuseAcceptedMatch's work (its JSDoc states the rule); `now` stamps respondedAt. */
export async function acceptedMatchInTx(
  input: AcceptedMatchInput,
  now: Date,
  createPrivateRoom: (tx: Tx, matchId: number) => Promise<void>,
): Promise<MatchWithRelations & { becameAccepted: boolean }> {
  const { tx } = input;
  if (input.userAId === input.userBId)
    throw new AppError('MATCH_SELF', { message: 'A match needs two different users' });
  // a blocked pair never gets a match (serialised with the block by the pair's lock)
  await lockUserPair(tx, input.userAId, input.userBId);
  if (await isBlockedPair(tx, input.userAId, input.userBId)) throw new AppError('USER_BLOCKED');
  await lockPair(tx, input.eventId, input.userAId, input.userBId);
  const existing = await tx.match.findFirst({
    where: {
      eventId: input.eventId,
      OR: [
        { user1Id: input.userAId, user2Id: input.userBId },
        { user1Id: input.userBId, user2Id: input.userAId },
      ],
    },
  });
  const becameAccepted = !existing || existing.status === 'pending';
  let matchId: number;
  if (existing) {
    matchId = existing.id;
    const data: Prisma.MatchUncheckedUpdateInput = {};
    if (existing.status === 'pending') Object.assign(data, { status: 'accepted', respondedAt: now });
    if (existing.suggestionId === null) {
      const taken = await tx.match.count({ where: { suggestionId: input.suggestionId } });
      if (taken === 0) data.suggestionId = input.suggestionId;
    }
    if (Object.keys(data).length > 0) await tx.match.update({ where: { id: existing.id }, data });
  } else {
    const created = await tx.match.create({
      data: {
        slug: randomSlug(),
        eventId: input.eventId,
        user1Id: input.userAId,
        user2Id: input.userBId,
        status: 'accepted',
        source: 'auto',
        suggestionId: input.suggestionId,
        respondedAt: now,
      },
    });
    matchId = created.id;
  }
  await createPrivateRoom(tx, matchId);
  const match = await tx.match.findUniqueOrThrow({ where: { id: matchId }, include: matchInclude });
  return { ...match, becameAccepted };
}

import type { PrismaClient } from '../../generated/prisma/client.js';
import { userSummarySelect } from '../../lib/user-summary.js';
import { isBlockedPair } from '../moderation/blocks.views.js';
import { AppError } from '../../lib/errors.js';

/** Signals and transfers are open in these match states. */
export const HANDOFF_STATUSES: readonly string[] = ['accepted', 'completed'];

const memberMatchSelect = {
  id: true,
  slug: true,
  status: true,
  user1Id: true,
  user2Id: true,
  user1: { select: userSummarySelect },
  user2: { select: userSummarySelect },
} as const;

/**
 * The match of `slug` seen by one of its two members, with both user summaries; 404 "Match
 * not found" for an unknown slug or a non-member (no existence leak, as on every match route).
 */
export async function findMemberMatch(db: PrismaClient, slug: string, userId: number) {
  const match = await db.match.findUnique({ where: { slug }, select: memberMatchSelect });
  if (!match || (match.user1Id !== userId && match.user2Id !== userId)) throw new AppError('MATCH_NOT_FOUND');
  const isUser1 = match.user1Id === userId;
  return {
    ...match,
    me: isUser1 ? match.user1 : match.user2,
    other: isUser1 ? match.user2 : match.user1,
  };
}

/**
 * As findMemberMatch, and 400 "Match is not accepted" unless the match is accepted or completed,
 * then 403 USER_BLOCKED while a block exists between the two members (the hand-off of a
 * completed match of a blocked pair is closed; its records stay readable).
 */
export async function findHandoffMatch(db: PrismaClient, slug: string, userId: number) {
  const match = await findMemberMatch(db, slug, userId);
  if (!HANDOFF_STATUSES.includes(match.status))
    throw new AppError('MATCH_NOT_ACCEPTED', { message: 'Match is not accepted' });
  if (await isBlockedPair(db, match.user1Id, match.user2Id)) throw new AppError('USER_BLOCKED');
  return match;
}

import type { Prisma, PrismaClient } from '../../generated/prisma/client.js';
import { AppError } from '../../lib/errors.js';
import { userSummarySelect } from '../../lib/user-summary.js';
import { isBlockedPair } from '../moderation/blocks.views.js';

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
 * The reads of `Match` (owned by this feature) that the video hand-off (src/modules/webrtc)
 * needs: a match seen by one of its members, the hand-off rule, whether a user has any match
 * open for a hand-off, and the row lock that serializes what is counted per match. Built by src/container.ts and injected.
 */
export class MatchAccess {
  constructor(private readonly db: PrismaClient) {}

  /**
   * The match of `slug` seen by one of its two members, with both user summaries; 404 "Match
   * not found" for an unknown slug or a non-member (no existence leak, as on every match route).
   */
  async member(slug: string, userId: number) {
    const match = await this.db.match.findUnique({ where: { slug }, select: memberMatchSelect });
    if (!match || (match.user1Id !== userId && match.user2Id !== userId)) throw new AppError('MATCH_NOT_FOUND');
    const isUser1 = match.user1Id === userId;
    return {
      ...match,
      me: isUser1 ? match.user1 : match.user2,
      other: isUser1 ? match.user2 : match.user1,
    };
  }

  /**
   * As member(), and 400 "Match is not accepted" unless the match is accepted or completed,
   * then 403 USER_BLOCKED while a block exists between the two members (the hand-off of a
   * completed match of a blocked pair is closed; its records stay readable).
   */
  async handoff(slug: string, userId: number) {
    const match = await this.member(slug, userId);
    if (!HANDOFF_STATUSES.includes(match.status))
      throw new AppError('MATCH_NOT_ACCEPTED', { message: 'Match is not accepted' });
    if (await isBlockedPair(this.db, match.user1Id, match.user2Id)) throw new AppError('USER_BLOCKED');
    return match;
  }

  /** Whether the user is a member of at least one accepted or completed match (any event). */
  async hasHandoffMatch(userId: number): Promise<boolean> {
    const match = await this.db.match.findFirst({
      where: { OR: [{ user1Id: userId }, { user2Id: userId }], status: { in: [...HANDOFF_STATUSES] } },
      select: { id: true },
    });
    return match !== null;
  }

  /** Locks the match row until the end of the caller's transaction (SELECT … FOR UPDATE). */
  async lock(tx: Prisma.TransactionClient, matchId: number): Promise<void> {
    await tx.$queryRaw`SELECT 1 FROM "Match" WHERE "id" = ${matchId} FOR UPDATE`;
  }
}

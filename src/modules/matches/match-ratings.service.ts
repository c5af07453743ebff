import type { Prisma, PrismaClient } from '../../generated/prisma/client.js';
import { userOf, type Actor } from '../../lib/actor.js';
import { AppError } from '../../lib/errors.js';
import { isUniqueViolation } from '../../lib/prisma-errors.js';
import { DELETED_USER_SUMMARY } from '../../lib/user-summary.js';
import type { ActivityLogService } from '../activity-log/activity-log.service.js';
import { findMemberMatch, OPEN_STATUSES, TX_OPTIONS, type Tx } from './match-records.js';
import type { RateMatchInput } from './matches.schemas.js';

const ratingInclude = {
  rater: { select: { id: true, username: true, avatar: true } },
  rated: { select: { id: true, username: true, avatar: true } },
  event: { select: { id: true, slug: true, name: true } },
} as const;

export type RatingView = Prisma.RatingGetPayload<{ include: typeof ratingInclude }>;

/** What POST /matches/:slug/ratings declares (matches.schemas.ts rateMatchInput). */
export type RateInput = RateMatchInput;

/** What the ratings use (built by src/container.ts). */
export interface MatchRatingsDeps {
  db: PrismaClient;
  audit: ActivityLogService;
}

/**
 * Ratings of a match partner (table Rating, owned by the matches feature): rating, the data
 * export's list and what an account deletion does to them.
 */
export class MatchRatingsService {
  constructor(private readonly deps: MatchRatingsDeps) {}

  /**
   * Rates the partner of an accepted or completed match. Checks: member 404 → accepted 400 →
   * not rated yet 409. The match row is locked FOR UPDATE first, so two members rating at the
   * same moment are serialised: the second one counts both ratings and the match becomes
   * `completed` exactly once. A second rating by the same rater of the same user at the same
   * event, on this match or another one, is refused by the unique (raterId, ratedId, eventId)
   * index → 409 ALREADY_RATED. Audited as match/match_rate (also the refused
   * duplicate) and, when it completes the match, match/match_complete.
   */
  async rate(actor: Actor, input: RateInput): Promise<RatingView> {
    const { db, audit } = this.deps;
    const userId = userOf(actor).id;
    const resource = `match:${input.slug}`;
    let rated: { rating: RatingView; completed: boolean };
    try {
      rated = await db.$transaction((tx) => insertRating(tx, userId, input), TX_OPTIONS);
    } catch (err) {
      if (isUniqueViolation(err)) {
        const refused = { category: 'match', action: 'match_rate', success: false, resource } as const;
        await audit.record(actor, { ...refused, metadata: { reason: 'duplicate' } });
        throw new AppError('ALREADY_RATED');
      }
      throw err;
    }
    const { rating, completed } = rated;
    const metadata = { ratingId: rating.id, matchId: rating.matchId, score: rating.score, completed };
    await audit.record(actor, { category: 'match', action: 'match_rate', resource, metadata });
    if (completed) {
      await audit.record(actor, {
        category: 'match',
        action: 'match_complete',
        resource,
        metadata: { matchId: rating.matchId },
      });
    }
    return rating;
  }

  /**
   * The data export (src/modules/privacy): ratings the user gave (with whom they rated) and
   * received (with the rater, the placeholder for a deleted one), newest first, no cap.
   */
  async ratingsOfUser(_actor: Actor, input: { userId: number }) {
    const { userId } = input;
    const common = {
      id: true,
      score: true,
      comment: true,
      wouldCollaborateAgain: true,
      createdAt: true,
      event: { select: { id: true, slug: true, name: true } },
    } as const;
    const order = [{ createdAt: 'desc' as const }, { id: 'desc' as const }];
    const brief = { select: { id: true, username: true, avatar: true } } as const;
    const { db } = this.deps;
    const [given, received] = await Promise.all([
      db.rating.findMany({ where: { raterId: userId }, select: { ...common, rated: brief }, orderBy: order }),
      db.rating.findMany({ where: { ratedId: userId }, select: { ...common, rater: brief }, orderBy: order }),
    ]);
    const placeholder = {
      id: DELETED_USER_SUMMARY.id,
      username: DELETED_USER_SUMMARY.username,
      avatar: DELETED_USER_SUMMARY.avatar,
    };
    return { given, received: received.map((r) => ({ ...r, rater: r.rater ?? placeholder })) };
  }

  /**
   * Account deletion, inside the caller's transaction (`tx`): ratings the user received go
   * (their raters' `given` counts drop); ratings the user gave stay and still count, without
   * their comment (the rater becomes null with the account: shown as the placeholder).
   */
  async anonymiseRatingsOf(_actor: Actor, input: { tx: Tx; userId: number }): Promise<void> {
    const { tx, userId } = input;
    await tx.rating.deleteMany({ where: { ratedId: userId } });
    await tx.rating.updateMany({ where: { raterId: userId }, data: { raterId: null, comment: null } });
  }
}

async function insertRating(tx: Tx, userId: number, input: RateInput) {
  const locked = await tx.$queryRaw<{ id: number }[]>`SELECT "id" FROM "Match" WHERE "slug" = ${input.slug} FOR UPDATE`;
  if (locked.length === 0) throw new AppError('MATCH_NOT_FOUND');
  const match = await findMemberMatch(tx, input.slug, userId);
  if (!OPEN_STATUSES.includes(match.status)) throw new AppError('MATCH_NOT_ACCEPTED');
  const rating = await tx.rating.create({
    data: {
      matchId: match.id,
      raterId: userId,
      ratedId: match.user1Id === userId ? match.user2Id : match.user1Id,
      eventId: match.eventId,
      score: input.score,
      comment: input.comment ?? null,
      wouldCollaborateAgain: input.wouldCollaborateAgain ?? null,
    },
    include: ratingInclude,
  });
  let completed = false;
  const raters = await tx.rating.count({ where: { matchId: match.id } });
  if (raters >= 2 && match.status === 'accepted') {
    const updated = await tx.match.updateMany({
      where: { id: match.id, status: 'accepted' },
      data: { status: 'completed' },
    });
    completed = updated.count === 1;
  }
  return { rating, completed };
}

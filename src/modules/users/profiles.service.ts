import type { PrismaClient } from '../../generated/prisma/client.js';
import { userOf, type Actor } from '../../lib/actor.js';
import { AppError } from '../../lib/errors.js';
import { sql, type SqlReader, type SqlStatement } from '../../lib/sql.js';
import { DELETED_USER_SUMMARY, userRefSelect } from '../../lib/user-summary.js';
import type { UsernameParam } from './users.schemas.js';
import { publicProfileView, userObjectView, type PublicProfileFields, type UserObject } from './users.views.js';

export interface UserStats {
  matches: { total: number; pending?: number; accepted: number; completed: number };
  ratings: { received: number; given: number; average: number | null };
  /** accepted recording suggestions over all events: as recorder (done), for the user's heats (received) */
  recordings: { done: number; received: number };
}

export const RATINGS_LIMIT = 50;

/** The rater of a rating whose rater deleted the account. */
const DELETED_RATER = {
  id: DELETED_USER_SUMMARY.id,
  username: DELETED_USER_SUMMARY.username,
  avatar: DELETED_USER_SUMMARY.avatar,
};

const round2 = (n: number | null | undefined) => (n == null ? null : Math.round(n * 100) / 100);

/**
 * A user row with its statistics in one statement: matches by status (as requester or target),
 * ratings received (count, average) and given. Indexes: Match(user1Id, status),
 * Match(user2Id, status), Rating(ratedId, createdAt), Rating(raterId).
 */
const withStats = (
  name: string,
  view: { columns(alias: string): string },
  where: string,
  options?: { perCaller: number },
): SqlStatement =>
  sql(
    name,
    `SELECT ${view.columns('u')},
       m.total, m.pending, m.accepted, m.completed, r.received, r.average, g.given, rd.done AS "recordingsDone", rr.received AS "recordingsReceived"
     FROM "User" u
     CROSS JOIN LATERAL (
       SELECT count(*)::int AS total,
              count(*) FILTER (WHERE status = 'pending')::int AS pending,
              count(*) FILTER (WHERE status = 'accepted')::int AS accepted,
              count(*) FILTER (WHERE status = 'completed')::int AS completed
       FROM "Match" WHERE "user1Id" = u.id OR "user2Id" = u.id) m
     CROSS JOIN LATERAL (SELECT count(*)::int AS received, avg(score)::float8 AS average FROM "Rating" WHERE "ratedId" = u.id) r
     CROSS JOIN LATERAL (SELECT count(*)::int AS given FROM "Rating" WHERE "raterId" = u.id) g
     CROSS JOIN LATERAL (SELECT count(*)::int AS done FROM "RecordingSuggestion" WHERE "recorderId" = u.id AND status = 'accepted') rd
     CROSS JOIN LATERAL (SELECT count(*)::int AS received FROM "RecordingSuggestion" WHERE "dancerId" = u.id AND status = 'accepted') rr
     WHERE ${where}`,
    options,
  );
const meWithStats = withStats('users_me', userObjectView, 'u.id = $1', { perCaller: 1 });
// a user who blocked the viewer ($2) is not found by them (docs/moderation.md)
const profileWithStats = withStats(
  'users_public_profile',
  publicProfileView,
  'u.username = $1 AND NOT EXISTS (SELECT 1 FROM "UserBlock" b WHERE b."blockerId" = u.id AND b."blockedId" = $2::int)',
);

interface StatsColumns {
  total: number;
  pending: number;
  accepted: number;
  completed: number;
  received: number;
  average: number | null;
  given: number;
  recordingsDone: number;
  recordingsReceived: number;
}

/** Splits a row of `withStats` into the user's fields and `stats`. */
function splitStats<T extends StatsColumns>(row: T, includePending: boolean) {
  const { total, pending, accepted, completed, received, average, given, recordingsDone, recordingsReceived, ...user } =
    row;
  const matches: UserStats['matches'] = includePending
    ? { total, pending, accepted, completed }
    : { total, accepted, completed };
  const recordings = { done: recordingsDone, received: recordingsReceived };
  const stats: UserStats = { matches, ratings: { received, given, average: round2(average) }, recordings };
  return { ...user, stats };
}

export interface ProfilesDeps {
  db: PrismaClient;
  sql: SqlReader;
}

/**
 * Reading accounts: the signed-in user's own object and other users' public profiles with
 * statistics, and the ratings a user received (read only; the viewer is the actor's user,
 * 401 AUTH_REQUIRED without one).
 */
export class ProfilesService {
  constructor(private readonly deps: ProfilesDeps) {}

  /** The user object with statistics (pending matches included), one statement; 404 USER_NOT_FOUND for a deleted account. */
  async getMe(actor: Actor, _input: Record<string, never> = {}) {
    const userId = userOf(actor).id;
    const [row] = await this.deps.sql.rows<UserObject & StatsColumns>(meWithStats, [userId]);
    if (!row) throw new AppError('USER_NOT_FOUND');
    return splitStats(row, true);
  }

  /**
   * The public profile of an exact (case-sensitive) username with statistics without pending
   * matches; 404 USER_NOT_FOUND, also when that user blocked the viewer (the same answer).
   */
  async getPublicProfile(actor: Actor, { username }: UsernameParam) {
    const viewerId = userOf(actor).id;
    const [row] = await this.deps.sql.rows<PublicProfileFields & StatsColumns>(profileWithStats, [username, viewerId]);
    if (!row) throw new AppError('USER_NOT_FOUND');
    return splitStats(row, false);
  }

  /**
   * Ratings a user received: 404 USER_NOT_FOUND for an unknown username or a user who blocked
   * the viewer; the newest RATINGS_LIMIT ratings, while the average and the total cover all of them.
   */
  async getUserRatings(actor: Actor, { username }: UsernameParam) {
    const viewerId = userOf(actor).id;
    const user = await this.deps.db.user.findFirst({
      where: { username, blocksMade: { none: { blockedId: viewerId } } },
      select: { id: true },
    });
    if (!user) throw new AppError('USER_NOT_FOUND');
    const [summary, ratings] = await Promise.all([
      this.deps.db.rating.aggregate({ where: { ratedId: user.id }, _count: { _all: true }, _avg: { score: true } }),
      this.deps.db.rating.findMany({
        where: { ratedId: user.id },
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        take: RATINGS_LIMIT,
        select: {
          id: true,
          score: true,
          comment: true,
          wouldCollaborateAgain: true,
          createdAt: true,
          rater: { select: userRefSelect },
          event: { select: { id: true, slug: true, name: true } },
        },
      }),
    ]);
    return {
      averageScore: round2(summary._avg.score),
      totalRatings: summary._count._all,
      // a rating whose rater deleted the account still counts, shown with the placeholder
      ratings: ratings.map((r) => ({ ...r, rater: r.rater ?? DELETED_RATER })),
    };
  }
}

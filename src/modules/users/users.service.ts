import type { Prisma, PrismaClient } from '../../generated/prisma/client.js';
import type { Actor } from '../../lib/actor.js';
import type { TokenAuthenticator } from '../../lib/auth.js';
import type { Clock } from '../../lib/clock.js';
import { AppError, validationFailed } from '../../lib/errors.js';
import type { MailQueue } from '../../lib/mail-queue.js';
import { emailChangedMail, verificationMail } from '../../lib/mailer.js';
import type { PasswordHasher } from '../../lib/password-hasher.js';
import { isRecordNotFound, isUniqueViolation } from '../../lib/prisma-errors.js';
import { sql, type SqlReader, type SqlStatement } from '../../lib/sql.js';
import { userObjectSelect, userRefSelect } from '../../lib/user-summary.js';
import type { Notifier } from '../../realtime/notifier.js';
import { rooms } from '../../realtime/types.js';
import type { ActivityLogService } from '../activity-log/activity-log.service.js';
import { newVerification } from '../auth/auth.tokens.js';
import type { ProfileUpdate } from './users.schemas.js';

export interface UsersSettings {
  /** base of the link in the verification mail after an e-mail change */
  frontendUrl: string;
}

/** Public profile: no e-mail, verification state, admin flag or lock data. */
const publicProfileSelect = {
  id: true,
  username: true,
  avatar: true,
  firstName: true,
  lastName: true,
  city: true,
  country: true,
  registryId: true,
  createdAt: true,
  instagramUrl: true,
  facebookUrl: true,
  youtubeUrl: true,
  tiktokUrl: true,
} as const;

export interface UserStats {
  matches: { total: number; pending?: number; accepted: number; completed: number };
  ratings: { received: number; given: number; average: number | null };
}

export const RATINGS_LIMIT = 50;

const PROFILE_FIELDS = ['firstName', 'lastName', 'city', 'country', 'instagramUrl', 'facebookUrl', 'youtubeUrl', 'tiktokUrl'] as const;

const round2 = (n: number | null | undefined) => (n == null ? null : Math.round(n * 100) / 100);

/**
 * A user row with its statistics in one statement: matches by status (as requester or target),
 * ratings received (count, average) and given. Indexes: Match(user1Id, status),
 * Match(user2Id, status), Rating(ratedId, createdAt), Rating(raterId).
 */
const withStats = (name: string, select: Record<string, true>, where: string): SqlStatement =>
  sql(
    name,
    `SELECT ${Object.keys(select).map((column) => `u."${column}"`).join(', ')},
       m.total, m.pending, m.accepted, m.completed, r.received, r.average, g.given
     FROM "User" u
     CROSS JOIN LATERAL (
       SELECT count(*)::int AS total,
              count(*) FILTER (WHERE status = 'pending')::int AS pending,
              count(*) FILTER (WHERE status = 'accepted')::int AS accepted,
              count(*) FILTER (WHERE status = 'completed')::int AS completed
       FROM "Match" WHERE "user1Id" = u.id OR "user2Id" = u.id) m
     CROSS JOIN LATERAL (SELECT count(*)::int AS received, avg(score)::float8 AS average FROM "Rating" WHERE "ratedId" = u.id) r
     CROSS JOIN LATERAL (SELECT count(*)::int AS given FROM "Rating" WHERE "raterId" = u.id) g
     WHERE ${where}`,
  );
type UserObjectRow = Prisma.UserGetPayload<{ select: typeof userObjectSelect }>;
type PublicProfileRow = Prisma.UserGetPayload<{ select: typeof publicProfileSelect }>;
const meWithStats = withStats('users_me', userObjectSelect, 'u.id = $1');
// a user who blocked the viewer ($2) is not found by them (docs/moderation.md)
const profileWithStats = withStats(
  'users_public_profile',
  publicProfileSelect,
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
}

/** Splits a row of `withStats` into the user's fields and `stats`. */
function splitStats<T extends StatsColumns>(row: T, includePending: boolean) {
  const { total, pending, accepted, completed, received, average, given, ...user } = row;
  const matches: UserStats['matches'] = includePending ? { total, pending, accepted, completed } : { total, accepted, completed };
  const stats: UserStats = { matches, ratings: { received, given, average: round2(average) } };
  return { ...user, stats };
}

/** The signed-in user's own account, public profiles with statistics, ratings, and admin promotion. */
export class UsersService {
  constructor(
    private readonly db: PrismaClient,
    private readonly sql: SqlReader,
    private readonly audit: ActivityLogService,
    private readonly tokens: TokenAuthenticator,
    private readonly hasher: PasswordHasher,
    private readonly notifier: Notifier,
    private readonly mail: MailQueue,
    private readonly clock: Clock,
    private readonly settings: UsersSettings,
  ) {}

  /** The user object with statistics (pending matches included), one statement; 404 USER_NOT_FOUND for a deleted account. */
  async getMe(userId: number) {
    const [row] = await this.sql.rows<UserObjectRow & StatsColumns>(meWithStats, [userId]);
    if (!row) throw new AppError('USER_NOT_FOUND');
    return splitStats(row, true);
  }

  /**
   * The public profile of an exact (case-sensitive) username with statistics without pending
   * matches; 404 USER_NOT_FOUND, also when that user blocked the viewer (the same answer).
   */
  async getPublicProfile(username: string, viewerId: number) {
    const [row] = await this.sql.rows<PublicProfileRow & StatsColumns>(profileWithStats, [username, viewerId]);
    if (!row) throw new AppError('USER_NOT_FOUND');
    return splitStats(row, false);
  }

  /**
   * Ratings a user received: 404 USER_NOT_FOUND for an unknown username or a user who blocked
   * the viewer; the newest RATINGS_LIMIT ratings, while the average and the total cover all of them.
   */
  async getUserRatings(username: string, viewerId: number) {
    const user = await this.db.user.findFirst({ where: { username, blocksMade: { none: { blockedId: viewerId } } }, select: { id: true } });
    if (!user) throw new AppError('USER_NOT_FOUND');
    const [summary, ratings] = await Promise.all([
      this.db.rating.aggregate({ where: { ratedId: user.id }, _count: { _all: true }, _avg: { score: true } }),
      this.db.rating.findMany({
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
    return { averageScore: round2(summary._avg.score), totalRatings: summary._count._all, ratings };
  }

  /**
   * Updates the editable profile fields (a whitelist: isAdmin, emailVerified, username … never
   * reach the database); 404 USER_NOT_FOUND. A new e-mail needs the current password (missing →
   * 400 VALIDATION_ERROR with details, wrong → 400 WRONG_PASSWORD, both before anything is
   * written), then 409 EMAIL_TAKEN (decided by the unique index); it resets emailVerified,
   * mails a new link token and code to the new address, tells the old address of the change
   * and answers a fresh JWT in `token`.
   */
  async updateProfile(actor: Actor, userId: number, update: ProfileUpdate) {
    const data: Record<string, unknown> = {};
    for (const field of PROFILE_FIELDS) {
      const value = update[field];
      if (value === undefined) continue;
      data[field] = value === null || value === '' ? null : value;
    }
    const current = await this.db.user.findUnique({ where: { id: userId }, select: { email: true, passwordHash: true } });
    if (!current) throw new AppError('USER_NOT_FOUND');

    const emailChanged = typeof update.email === 'string' && update.email !== current.email;
    if (emailChanged) await this.checkCurrentPassword(actor, current.passwordHash, update.currentPassword, 'email_change');
    const verification = emailChanged ? newVerification(this.clock.now()) : undefined;
    if (verification) Object.assign(data, { email: update.email, emailVerified: false, ...verification.stored });

    let user;
    try {
      // a new address gets a verification mail and the old one is told, both only if the change commits
      user = await this.mail.transaction(this.db, async (tx) => {
        const changed = await tx.user.update({ where: { id: userId }, data, select: { ...userObjectSelect, tokenVersion: true } });
        const mails = verification
          ? [
              verificationMail(this.settings.frontendUrl, changed.email, changed.username, verification.token, verification.code),
              emailChangedMail(current.email, changed.username, changed.email),
            ]
          : [];
        return { result: changed, mails };
      });
    } catch (err) {
      if (isUniqueViolation(err, 'email')) throw new AppError('EMAIL_TAKEN');
      throw err;
    }
    await this.audit.record(actor, {
      category: 'auth',
      action: emailChanged ? 'email_change' : 'profile_update',
      metadata: { fields: Object.keys(data).filter((k) => !k.startsWith('verification') && k !== 'emailVerified') },
    });
    const { tokenVersion, ...updated } = user;
    if (!verification) return updated;
    return { ...updated, token: this.tokens.sign({ ...updated, tokenVersion }) };
  }

  /** 400 VALIDATION_ERROR without a current password, 400 WRONG_PASSWORD (audited) when it does not match. */
  private async checkCurrentPassword(actor: Actor, passwordHash: string, given: string | undefined, action: string): Promise<void> {
    if (!given) throw validationFailed([{ field: 'currentPassword', message: 'Current password is required to change the e-mail' }]);
    if (await this.hasher.compare(given, passwordHash)) return;
    await this.audit.record(actor, { category: 'auth', action, success: false, metadata: { reason: 'wrong_current_password' } });
    throw new AppError('WRONG_PASSWORD');
  }

  /**
   * Changes the password: 404 USER_NOT_FOUND, then 400 WRONG_PASSWORD unless the current
   * password matches. Ends every earlier session: the token version is incremented (older
   * tokens get 401) and the user's sockets are disconnected after the commit. A pending
   * password-reset link is void afterwards. Answers a fresh token, so the caller stays signed in.
   */
  async changePassword(actor: Actor, userId: number, currentPassword: string, newPassword: string): Promise<{ token: string }> {
    const user = await this.db.user.findUnique({ where: { id: userId }, select: { passwordHash: true } });
    if (!user) throw new AppError('USER_NOT_FOUND');
    if (!(await this.hasher.compare(currentPassword, user.passwordHash))) {
      await this.audit.record(actor, {
        category: 'auth',
        action: 'password_change',
        success: false,
        metadata: { reason: 'wrong_current_password' },
      });
      throw new AppError('WRONG_PASSWORD');
    }
    const passwordHash = await this.hasher.hash(newPassword);
    const updated = await this.db.user.update({
      where: { id: userId },
      data: { passwordHash, resetTokenHash: null, resetExpiresAt: null, tokenVersion: { increment: 1 } },
      select: { id: true, emailVerified: true, tokenVersion: true },
    });
    await this.notifier.disconnectUser(userId, updated.tokenVersion);
    await this.audit.record(actor, { category: 'auth', action: 'password_change' });
    return { token: this.tokens.sign(updated) };
  }

  /**
   * Makes the user of an e-mail address (trimmed, lower-cased) an admin; 404 USER_NOT_FOUND
   * naming the address when there is none. Used by the operator CLI (`user:promote`).
   */
  promoteToAdmin(email: string) {
    return this.setAdmin(email, true);
  }

  /**
   * Takes admin rights from the user of an e-mail address (CLI `user:demote`); 404 as above.
   * Their sockets leave the admin activity-log room at once (where this process has them; the
   * stream checks the role per entry anyway).
   */
  async demoteFromAdmin(email: string) {
    const user = await this.setAdmin(email, false);
    this.notifier.removeUserFromRoom(user.id, rooms.adminActivityLogs);
    return user;
  }

  private async setAdmin(email: string, isAdmin: boolean) {
    try {
      return await this.db.user.update({
        where: { email: email.trim().toLowerCase() },
        data: { isAdmin },
        select: userObjectSelect,
      });
    } catch (err) {
      if (isRecordNotFound(err)) throw new AppError('USER_NOT_FOUND', { message: `No user with e-mail ${email}` });
      throw err;
    }
  }
}

import type { Prisma, PrismaClient } from '../../generated/prisma/client.js';
import type { Actor } from '../../lib/actor.js';
import type { TokenAuthenticator } from '../../lib/auth.js';
import type { Clock } from '../../lib/clock.js';
import { AppError, validationFailed } from '../../lib/errors.js';
import type { MailQueue } from '../../lib/mail-queue.js';
import type { PasswordHasher } from '../../lib/password-hasher.js';
import { isRecordNotFound, isUniqueViolation } from '../../lib/prisma-errors.js';
import { sql, type SqlReader, type SqlStatement } from '../../lib/sql.js';
import { avatarUrlFor, DELETED_USER_SUMMARY, userObjectSelect, userRefSelect } from '../../lib/user-summary.js';
import type { Notifier } from '../../realtime/notifier.js';
import { rooms } from '../../realtime/types.js';
import type { ActivityLogService } from '../activity-log/activity-log.service.js';
import { accountMail } from '../auth/account-mails.js';
import type { CurrentPasswordCheck } from '../auth/current-password.js';
import { clearedVerification } from '../auth/auth.tokens.js';
import type { ProfileUpdate } from './users.schemas.js';

export interface UsersSettings {
  /** base of the link in the verification mail after an e-mail change */
  frontendUrl: string;
  /** PUBLIC_URL: avatar URLs of accounts made by the operator start with it */
  publicUrl: string;
  /** per account at most `max` e-mail changes in a rolling `windowSeconds`; undefined = no cap (rate limits off) */
  emailChangeLimit?: { max: number; windowSeconds: number };
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

const PROFILE_FIELDS = [
  'firstName',
  'lastName',
  'city',
  'country',
  'instagramUrl',
  'facebookUrl',
  'youtubeUrl',
  'tiktokUrl',
] as const;

const round2 = (n: number | null | undefined) => (n == null ? null : Math.round(n * 100) / 100);

/**
 * A user row with its statistics in one statement: matches by status (as requester or target),
 * ratings received (count, average) and given. Indexes: Match(user1Id, status),
 * Match(user2Id, status), Rating(ratedId, createdAt), Rating(raterId).
 */
const withStats = (name: string, select: Record<string, true>, where: string): SqlStatement =>
  sql(
    name,
    `SELECT ${Object.keys(select)
      .map((column) => `u."${column}"`)
      .join(', ')},
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

/** An account the operator creates (validated like a registration first). */
export interface OperatorAccountInput {
  email: string;
  username: string;
  password: string;
  isAdmin?: boolean;
  firstName?: string | null;
  lastName?: string | null;
  city?: string | null;
  country?: string | null;
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
    private readonly currentPassword: CurrentPasswordCheck,
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
    const user = await this.db.user.findFirst({
      where: { username, blocksMade: { none: { blockedId: viewerId } } },
      select: { id: true },
    });
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
    return {
      averageScore: round2(summary._avg.score),
      totalRatings: summary._count._all,
      // a rating whose rater deleted the account still counts, shown with the placeholder
      ratings: ratings.map((r) => ({ ...r, rater: r.rater ?? DELETED_RATER })),
    };
  }

  /**
   * Updates the editable profile fields (a whitelist: isAdmin, emailVerified, username … never
   * reach the database); 404 USER_NOT_FOUND. A new e-mail needs the current password (missing →
   * 400 VALIDATION_ERROR with details; wrong → 400 WRONG_PASSWORD, counted as a failed login:
   * 423 ACCOUNT_LOCKED at the maximum and while locked; all before anything is written), then,
   * with the cap on, 429 EMAIL_CHANGE_LIMITED past the per-account cap, then 409 EMAIL_TAKEN
   * (decided by the unique index); it resets emailVerified, queues a verification mail to the new
   * address and a notice to the old one, and answers a fresh JWT in `token`.
   */
  async updateProfile(actor: Actor, userId: number, update: ProfileUpdate) {
    const data: Record<string, unknown> = {};
    for (const field of PROFILE_FIELDS) {
      const value = update[field];
      if (value === undefined) continue;
      data[field] = value === null || value === '' ? null : value;
    }
    const current = await this.db.user.findUnique({ where: { id: userId }, select: { email: true } });
    if (!current) throw new AppError('USER_NOT_FOUND');

    const emailChanged = typeof update.email === 'string' && update.email !== current.email;
    if (emailChanged) await this.checkCurrentPassword(actor, userId, update.currentPassword, 'email_change');
    // the old address's link and code stop working; the new ones are created when the mail is sent
    if (emailChanged) Object.assign(data, { email: update.email, emailVerified: false, ...clearedVerification });

    let user;
    try {
      // a new address gets a verification mail and the old one is told, both only if the change commits
      user = await this.mail.transaction(this.db, async (tx) => {
        const changed = await tx.user.update({
          where: { id: userId },
          data,
          select: { ...userObjectSelect, tokenVersion: true },
        });
        // counted under the user row's lock (taken by the update), so parallel changes cannot pass the cap together
        if (emailChanged) await this.countEmailChange(tx, userId);
        const mails = emailChanged
          ? [
              accountMail.verification(userId, changed.email),
              accountMail.emailChanged(userId, current.email, changed.email),
            ]
          : [];
        return { result: changed, mails };
      });
    } catch (err) {
      if (isUniqueViolation(err, 'email')) throw new AppError('EMAIL_TAKEN');
      if (err instanceof AppError && err.code === 'EMAIL_CHANGE_LIMITED') {
        await this.audit.record(actor, {
          category: 'auth',
          action: 'email_change',
          success: false,
          metadata: { reason: 'limit' },
        });
      }
      throw err;
    }
    await this.audit.record(actor, {
      category: 'auth',
      action: emailChanged ? 'email_change' : 'profile_update',
      metadata: { fields: Object.keys(data).filter((k) => !k.startsWith('verification') && k !== 'emailVerified') },
    });
    const { tokenVersion, ...updated } = user;
    if (!emailChanged) return updated;
    return { ...updated, token: this.tokens.sign({ ...updated, tokenVersion }) };
  }

  /** 400 VALIDATION_ERROR without a current password, else the lockout rules of CurrentPasswordCheck. */
  private async checkCurrentPassword(
    actor: Actor,
    userId: number,
    given: string | undefined,
    action: string,
  ): Promise<void> {
    if (!given)
      throw validationFailed([
        { field: 'currentPassword', message: 'Current password is required to change the e-mail' },
      ]);
    await this.currentPassword.verify(actor, userId, given, action);
  }

  /**
   * Records an e-mail change, or 429 EMAIL_CHANGE_LIMITED (+ Retry-After: seconds until the oldest
   * counted change leaves the window) when the account already made the maximum in the window.
   */
  private async countEmailChange(tx: Prisma.TransactionClient, userId: number): Promise<void> {
    const limit = this.settings.emailChangeLimit;
    if (!limit) return;
    const [window] = await tx.$queryRaw<{ n: number; retryMs: number | null }[]>`
      SELECT count(*)::int AS n,
        (EXTRACT(EPOCH FROM (min("createdAt") + make_interval(secs => ${limit.windowSeconds}::int) - now())) * 1000)::float8 AS "retryMs"
      FROM "EmailChange"
      WHERE "userId" = ${userId} AND "createdAt" > now() - make_interval(secs => ${limit.windowSeconds}::int)`;
    if (window.n >= limit.max) {
      const retryAfter = String(Math.max(1, Math.ceil((window.retryMs ?? 1000) / 1000)));
      throw new AppError('EMAIL_CHANGE_LIMITED', { headers: { 'Retry-After': retryAfter } });
    }
    await tx.emailChange.create({ data: { userId } });
  }

  /** Whether `email` (normalized) differs from the account's address: an e-mail change (the router's rate tiers). */
  async isEmailChange(userId: number, email: string): Promise<boolean> {
    const user = await this.db.user.findUnique({ where: { id: userId }, select: { email: true } });
    return user !== null && user.email !== email;
  }

  /**
   * Changes the password: 404 USER_NOT_FOUND, then the current password as a login attempt
   * (400 WRONG_PASSWORD, 423 ACCOUNT_LOCKED at the maximum and while locked). Ends every earlier session: the token version is incremented (older
   * tokens get 401) and the user's sockets are disconnected after the commit. A pending
   * password-reset link is void afterwards. Answers a fresh token, so the caller stays signed in.
   */
  async changePassword(
    actor: Actor,
    userId: number,
    currentPassword: string,
    newPassword: string,
  ): Promise<{ token: string }> {
    await this.currentPassword.verify(actor, userId, currentPassword, 'password_change');
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
   * An account made by the operator (CLI `user:create`, `demo:seed`), not through registration:
   * the e-mail counts as verified (the operator vouches for it) and no mail is sent. The input
   * is validated like a registration beforehand. Unique constraints decide: 409 EMAIL_TAKEN,
   * then USERNAME_TAKEN. Audited as admin/user_create.
   */
  async createAccount(actor: Actor, input: OperatorAccountInput) {
    const passwordHash = await this.hasher.hash(input.password);
    let user;
    try {
      user = await this.db.user.create({
        data: {
          username: input.username,
          email: input.email,
          passwordHash,
          avatar: avatarUrlFor(this.settings.publicUrl, input.username),
          firstName: input.firstName || null,
          lastName: input.lastName || null,
          city: input.city || null,
          country: input.country || null,
          emailVerified: true,
          isAdmin: input.isAdmin ?? false,
        },
        select: userObjectSelect,
      });
    } catch (err) {
      if (isUniqueViolation(err, 'email')) throw new AppError('EMAIL_TAKEN');
      if (isUniqueViolation(err, 'username')) throw new AppError('USERNAME_TAKEN');
      throw err;
    }
    await this.audit.record(actor, {
      category: 'admin',
      action: 'user_create',
      resource: `user:${user.id}`,
      metadata: { isAdmin: user.isAdmin },
    });
    return user;
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

import type { Prisma, PrismaClient } from '../../generated/prisma/client.js';
import { AppError } from '../../lib/errors.js';
import { isRecordNotFound, isUniqueViolation } from '../../lib/prisma-errors.js';
import { userObjectView } from './users.views.js';

type Db = Prisma.TransactionClient | PrismaClient;

/**
 * Rows whose avatar is not `$1<seed>.svg` get that URL; the seed is the `seed` query parameter of
 * a generator URL (`https://api.dicebear.com/…?seed=<seed>`), else the seed of an avatar route
 * URL under another address, else the username. Idempotent: a second run changes nothing.
 */
const REPOINT_AVATARS = `WITH stale AS (
     SELECT id, coalesce(
         substring(avatar from '[?&]seed=([A-Za-z0-9_-]{1,64})(?:&|$)'),
         substring(avatar from '/api/avatars/([A-Za-z0-9_-]{1,64})\\.svg$'),
         CASE WHEN username ~ '^[A-Za-z0-9_-]{1,64}$' THEN username END,
         'user' || id::text) AS seed
     FROM "User"
     WHERE left(avatar, length($1::text)) <> $1::text
        OR substring(avatar from length($1::text) + 1) !~ '^[A-Za-z0-9_-]{1,64}\\.svg$')
   UPDATE "User" u SET avatar = $1::text || stale.seed || '.svg'
   FROM stale WHERE u.id = stale.id`;

/** The columns a new account is created with (the rest take their defaults). */
export type NewUser = Pick<
  Prisma.UserCreateInput,
  | 'username'
  | 'email'
  | 'passwordHash'
  | 'avatar'
  | 'firstName'
  | 'lastName'
  | 'city'
  | 'country'
  | 'registryId'
  | 'emailVerified'
  | 'isAdmin'
>;

/** A login attempt counted on an unlocked account (reserveLoginAttempt). */
export interface LoginAttemptRow {
  id: number;
  username: string;
  passwordHash: string;
  failedLoginAttempts: number;
}

/** A failed current-password attempt counted on an unlocked account (countFailedAttempt). */
export interface CountedAttempt {
  failedLoginAttempts: number;
  /** set when this attempt locked the account */
  remainingMs: number | null;
}

/** The lockout settings (LOCKOUT_MAX_ATTEMPTS, LOCKOUT_MINUTES). */
export interface Lockout {
  maxAttempts: number;
  minutes: number;
}

/** A 409 for a unique violation of `User` (the e-mail first, then the username), else the error itself. */
function takenOr(err: unknown): unknown {
  if (isUniqueViolation(err, 'email')) return new AppError('EMAIL_TAKEN');
  if (isUniqueViolation(err, 'username')) return new AppError('USERNAME_TAKEN');
  return err;
}

/**
 * The writes of `User`, owned by the users feature: every other feature (auth: registration,
 * login and its lockout, e-mail verification, password reset, account mails; moderation:
 * suspension; privacy: account deletion; avatars: the URL repointing) changes a user row through
 * one of these intent-named methods, built once by src/container.ts and injected. A method that
 * takes `db` runs in the caller's transaction when given one. The SQL of the atomic counters
 * (login attempts, lockout, verification attempts) is here, unchanged, so their rules stay in one place.
 */
export class UserRecords {
  constructor(private readonly db: PrismaClient) {}

  // ---------------------------------------------------------------- accounts

  /** A new account; 409 EMAIL_TAKEN, then USERNAME_TAKEN, decided by the unique constraints. */
  async create(data: NewUser, db: Db = this.db) {
    try {
      return await db.user.create({ data, select: userObjectView.select });
    } catch (err) {
      throw takenOr(err);
    }
  }

  /**
   * Profile fields and, for an e-mail change, the new address and its verification state, in the
   * caller's transaction (the row lock it takes serializes parallel changes); 409 EMAIL_TAKEN.
   */
  async updateProfile(userId: number, data: Prisma.UserUpdateInput, db: Db = this.db) {
    try {
      return await db.user.update({
        where: { id: userId },
        data,
        select: { ...userObjectView.select, tokenVersion: true },
      });
    } catch (err) {
      throw takenOr(err);
    }
  }

  /** Grants or takes admin rights by e-mail address (trimmed, lower-cased); 404 USER_NOT_FOUND naming it. */
  async setAdmin(email: string, isAdmin: boolean) {
    try {
      return await this.db.user.update({
        where: { email: email.trim().toLowerCase() },
        data: { isAdmin },
        select: userObjectView.select,
      });
    } catch (err) {
      if (isRecordNotFound(err)) throw new AppError('USER_NOT_FOUND', { message: `No user with e-mail ${email}` });
      throw err;
    }
  }

  /** A new password chosen by the signed-in user: the reset link is void and every token revoked. */
  setPassword(userId: number, passwordHash: string) {
    return this.db.user.update({
      where: { id: userId },
      data: { passwordHash, resetTokenHash: null, resetExpiresAt: null, tokenVersion: { increment: 1 } },
      select: { id: true, emailVerified: true, tokenVersion: true },
    });
  }

  /**
   * A new password by reset token: single use (conditional on the token hash and its expiry),
   * clears the lock and the counter and revokes every token. Answers whether it happened.
   */
  async resetPassword(input: { userId: number; tokenHash: string; passwordHash: string; now: Date }): Promise<boolean> {
    const { count } = await this.db.user.updateMany({
      where: { id: input.userId, resetTokenHash: input.tokenHash, resetExpiresAt: { gt: input.now } },
      data: {
        passwordHash: input.passwordHash,
        resetTokenHash: null,
        resetExpiresAt: null,
        failedLoginAttempts: 0,
        lockedUntil: null,
        tokenVersion: { increment: 1 },
      },
    });
    return count > 0;
  }

  /** Account deletion, in the caller's transaction (after every row that refers to the user is gone or anonymised). */
  async delete(userId: number, tx: Prisma.TransactionClient): Promise<void> {
    await tx.user.delete({ where: { id: userId } });
  }

  /**
   * Points every avatar URL that is not `<prefix><seed>.svg` at `prefix` (the avatar route of
   * src/modules/avatars, at start-up); answers how many rows changed. Idempotent.
   */
  repointAvatars(prefix: string): Promise<number> {
    return this.db.$executeRawUnsafe(REPOINT_AVATARS, prefix);
  }

  // ---------------------------------------------------------------- e-mail verification and mails

  /**
   * The e-mail is verified, if the link's or the code's hash (`where`) still matches: the stored
   * verification is cleared. Answers whether it happened.
   */
  async markEmailVerified(
    userId: number,
    matching: { verificationTokenHash: string } | { verificationCodeHash: string },
    cleared: Prisma.UserUpdateManyMutationInput,
  ): Promise<boolean> {
    const { count } = await this.db.user.updateMany({
      where: { id: userId, ...matching },
      data: { emailVerified: true, ...cleared },
    });
    return count > 0;
  }

  /**
   * Counts a verification-code attempt of the address in one atomic UPDATE … RETURNING, while a
   * live code exists and fewer than `maxAttempts` were made; answers the row to compare, or nothing.
   */
  async countCodeAttempt(email: string, maxAttempts: number) {
    const rows = await this.db.$queryRaw<{ id: number; username: string; verificationCodeHash: string }[]>`
      UPDATE "User" SET "verificationAttempts" = "verificationAttempts" + 1
      WHERE "email" = ${email}
        AND "verificationCodeHash" IS NOT NULL
        AND "verificationExpiresAt" > now()
        AND "verificationAttempts" < ${maxAttempts}
      RETURNING "id", "username", "verificationCodeHash"`;
    return rows[0];
  }

  /**
   * Replaces the stored verification link and code hashes while the address is `email` (when
   * given) and unverified; answers the address and username to mail, or nothing.
   */
  async storeVerification(userId: number, email: string | undefined, stored: Prisma.UserUpdateManyMutationInput) {
    const [user] = await this.db.user.updateManyAndReturn({
      where: { id: userId, emailVerified: false, ...(email ? { email } : {}) },
      data: stored,
      select: { email: true, username: true },
    });
    return user;
  }

  /** Replaces the stored reset-token hash; answers the address and username to mail, or nothing. */
  async storeResetToken(userId: number, stored: Prisma.UserUpdateManyMutationInput) {
    const [user] = await this.db.user.updateManyAndReturn({
      where: { id: userId },
      data: stored,
      select: { email: true, username: true },
    });
    return user;
  }

  // ---------------------------------------------------------------- login and lockout

  /**
   * Counts a login attempt of an unlocked account in ONE atomic UPDATE (row lock: parallel
   * attempts are counted one after another) and answers it. After an expired lock counting
   * starts again at 1. Nothing while `maxAttempts` counted attempts younger than `staleSeconds`
   * are open, for an unknown e-mail or a locked account.
   */
  async reserveLoginAttempt(email: string, maxAttempts: number, staleSeconds: number) {
    const rows = await this.db.$queryRaw<LoginAttemptRow[]>`
        UPDATE "User" SET
          "failedLoginAttempts" = CASE WHEN "lockedUntil" IS NOT NULL THEN 1 ELSE "failedLoginAttempts" + 1 END,
          "lockedUntil" = NULL,
          "updatedAt" = now()
        WHERE "email" = ${email} AND ("lockedUntil" IS NULL OR "lockedUntil" <= now())
          AND ("lockedUntil" IS NOT NULL OR "failedLoginAttempts" < ${maxAttempts}
            OR "updatedAt" < now() - make_interval(secs => ${staleSeconds}))
        RETURNING "id", "username", "passwordHash", "failedLoginAttempts"`;
    return rows[0];
  }

  /** An attempt that ended without a comparison gives its count back (never below zero). */
  async releaseLoginAttempt(userId: number): Promise<void> {
    await this.db.$executeRaw`
      UPDATE "User" SET "failedLoginAttempts" = GREATEST("failedLoginAttempts" - 1, 0)
      WHERE "id" = ${userId} AND ("lockedUntil" IS NULL OR "lockedUntil" <= now())`;
  }

  /**
   * A successful login: the counter and the lock are cleared; answers the user object with what
   * the token and the suspension check need, read from the same row version.
   */
  recordLogin(userId: number) {
    return this.db.user.update({
      where: { id: userId },
      data: { failedLoginAttempts: 0, lockedUntil: null },
      select: { ...userObjectView.select, tokenVersion: true, suspendedAt: true, suspendedUntil: true },
    });
  }

  /**
   * A wrong login password whose attempt number reached the maximum locks the account, unless a
   * right password reset the count meanwhile or it is locked already; answers the remaining lock time.
   */
  async lock(userId: number, { maxAttempts, minutes }: Lockout): Promise<number | undefined> {
    const rows = await this.db.$queryRaw<Array<{ remainingMs: number }>>`
      UPDATE "User" SET "lockedUntil" = now() + make_interval(mins => ${minutes}::int)
      WHERE "id" = ${userId} AND "failedLoginAttempts" >= ${maxAttempts}
        AND ("lockedUntil" IS NULL OR "lockedUntil" <= now())
      RETURNING (EXTRACT(EPOCH FROM ("lockedUntil" - now())) * 1000)::float8 AS "remainingMs"`;
    return rows[0]?.remainingMs;
  }

  /** A right current password: the counter and an expired lock are cleared; false while the account is locked. */
  async clearFailedAttempts(userId: number): Promise<boolean> {
    const cleared = await this.db.$executeRaw`
      UPDATE "User" SET "failedLoginAttempts" = 0, "lockedUntil" = NULL
      WHERE "id" = ${userId} AND ("lockedUntil" IS NULL OR "lockedUntil" <= now())`;
    return cleared > 0;
  }

  /**
   * A wrong current password counts like a failed login on an unlocked account (the attempt
   * that reaches the maximum locks it); nothing when it is locked.
   */
  async recordFailedAttempt(userId: number, { maxAttempts, minutes }: Lockout): Promise<CountedAttempt | undefined> {
    const rows = await this.db.$queryRaw<CountedAttempt[]>`
      UPDATE "User" SET
        "failedLoginAttempts" = CASE WHEN "lockedUntil" IS NOT NULL THEN 1 ELSE "failedLoginAttempts" + 1 END,
        "lockedUntil" = CASE
          WHEN (CASE WHEN "lockedUntil" IS NOT NULL THEN 1 ELSE "failedLoginAttempts" + 1 END) >= ${maxAttempts}
            THEN now() + make_interval(mins => ${minutes}::int)
          ELSE NULL END
      WHERE "id" = ${userId} AND ("lockedUntil" IS NULL OR "lockedUntil" <= now())
      RETURNING "failedLoginAttempts",
        CASE WHEN "lockedUntil" > now()
          THEN (EXTRACT(EPOCH FROM ("lockedUntil" - now())) * 1000)::float8 END AS "remainingMs"`;
    return rows[0];
  }

  // ---------------------------------------------------------------- suspension

  /**
   * Suspends a non-admin (reason and end replaced; suspendedAt kept while a suspension runs) and
   * revokes every token, in one conditional UPDATE; answers suspendedAt, or nothing when the user
   * is an admin (promoted meanwhile).
   */
  async suspend(input: { userId: number; by: number; reason: string; until: Date | null; now: Date }) {
    const { userId, by, reason, until, now } = input;
    const rows = await this.db.$queryRaw<{ suspendedAt: Date }[]>`
      UPDATE "User" SET
        "suspendedAt" = CASE WHEN "suspendedAt" IS NOT NULL AND ("suspendedUntil" IS NULL OR "suspendedUntil" > ${now})
                          THEN "suspendedAt" ELSE ${now} END,
        "suspendedUntil" = ${until},
        "suspensionReason" = ${reason},
        "suspendedById" = ${by},
        "tokenVersion" = "tokenVersion" + 1,
        "updatedAt" = ${now}
      WHERE id = ${userId} AND "isAdmin" = false
      RETURNING "suspendedAt"`;
    return rows[0];
  }

  /** Lifts a suspension (nothing to do when there is none). */
  async unsuspend(userId: number): Promise<void> {
    await this.db.user.update({
      where: { id: userId },
      data: { suspendedAt: null, suspendedUntil: null, suspensionReason: null, suspendedById: null },
    });
  }
}

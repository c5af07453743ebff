import { timingSafeEqual } from 'node:crypto';
import bcrypt from 'bcryptjs';
import type { Request } from 'express';
import { config } from '../../config/index.js';
import { signAccessToken } from '../../lib/auth.js';
import { AppError } from '../../lib/errors.js';
import { sha256 } from '../../lib/ids.js';
import { passwordResetMail, sendMailInBackground, verificationMail } from '../../lib/mailer.js';
import { prisma } from '../../lib/prisma.js';
import { isUniqueViolation } from '../../lib/prisma-errors.js';
import { avatarUrlFor } from '../../lib/user-summary.js';
import { logActivity } from '../activity-log/activity-log.service.js';
import { userObjectSelect } from '../users/users.service.js';
import { clearedVerification, MAX_CODE_ATTEMPTS, newResetToken, newVerification } from './auth.tokens.js';

export interface RegisterInput {
  username: string;
  email: string;
  password: string;
  firstName?: string | null;
  lastName?: string | null;
  registryId?: string | null;
}

const invalidCredentials = () => new AppError('INVALID_CREDENTIALS');

/** bcrypt hash of a random string: compared against for unknown e-mails so timing does not tell. */
let dummyHash: string | undefined;
const dummyHashFor = (rounds: number) => (dummyHash ??= bcrypt.hashSync('no-such-user-dummy-password', rounds));

function lockedError(remainingMs: number): AppError {
  // whole milliseconds: lockedUntil is stored with millisecond precision, now() has microseconds
  remainingMs = Math.floor(remainingMs);
  const retryAfter = Math.max(1, Math.ceil(remainingMs / 1000));
  const minutes = Math.max(1, Math.ceil(remainingMs / 60_000));
  return new AppError('ACCOUNT_LOCKED', {
    message: `Account is locked. Try again in ${minutes} minute(s).`,
    extra: { retryAfter },
    headers: { 'Retry-After': String(retryAfter) },
  });
}

export async function register(req: Request, input: RegisterInput) {
  const verification = newVerification();
  const passwordHash = await bcrypt.hash(input.password, config.bcryptRounds);
  let user;
  try {
    // Only whitelisted fields: isAdmin / emailVerified in the body never reach the database.
    user = await prisma.user.create({
      data: {
        username: input.username,
        email: input.email,
        passwordHash,
        avatar: avatarUrlFor(input.username),
        firstName: input.firstName || null,
        lastName: input.lastName || null,
        registryId: input.registryId || null,
        ...verification.stored,
      },
      select: userObjectSelect,
    });
  } catch (err) {
    // The unique constraints decide, also for two concurrent registrations.
    if (isUniqueViolation(err, 'email')) throw new AppError('EMAIL_TAKEN');
    if (isUniqueViolation(err, 'username')) throw new AppError('USERNAME_TAKEN');
    throw err;
  }
  void logActivity({ req, category: 'auth', action: 'register', userId: user.id, username: user.username });
  // Registration never waits for nor fails on the mail server; resend works later.
  void sendMailInBackground(verificationMail(config.frontendUrl, user.email, user.username, verification.token, verification.code), {
    userId: user.id,
  });
  return { token: signAccessToken(user), user };
}

interface FailedLoginRow {
  failedLoginAttempts: number;
  lockedUntil: Date | null;
  remainingMs: number | null;
}

/**
 * Counts a failed login in ONE atomic UPDATE (row lock; concurrent failures all count).
 * While locked nothing changes; after an expired lock counting starts again at 1; the
 * attempt that reaches the maximum sets lockedUntil.
 */
async function recordFailedLogin(userId: number): Promise<FailedLoginRow> {
  const { maxAttempts, minutes } = config.lockout;
  const rows = await prisma.$queryRaw<FailedLoginRow[]>`
    UPDATE "User" SET
      "failedLoginAttempts" = CASE
        WHEN "lockedUntil" > now() THEN "failedLoginAttempts"
        WHEN "lockedUntil" IS NOT NULL THEN 1
        ELSE "failedLoginAttempts" + 1 END,
      "lockedUntil" = CASE
        WHEN "lockedUntil" > now() THEN "lockedUntil"
        WHEN (CASE WHEN "lockedUntil" IS NOT NULL THEN 1 ELSE "failedLoginAttempts" + 1 END) >= ${maxAttempts}
          THEN now() + make_interval(mins => ${minutes}::int)
        ELSE NULL END
    WHERE "id" = ${userId}
    RETURNING "failedLoginAttempts", "lockedUntil",
      CASE WHEN "lockedUntil" > now()
        THEN (EXTRACT(EPOCH FROM ("lockedUntil" - now())) * 1000)::float8 END AS "remainingMs"`;
  return rows[0] ?? { failedLoginAttempts: 0, lockedUntil: null, remainingMs: null };
}

export async function login(req: Request, email: string, password: string) {
  const found = await prisma.user.findUnique({
    where: { email },
    select: { ...userObjectSelect, passwordHash: true, lockedUntil: true, failedLoginAttempts: true },
  });
  if (!found) {
    await bcrypt.compare(password, dummyHashFor(config.bcryptRounds));
    void logActivity({ req, category: 'auth', action: 'login_failed', success: false, userId: null, username: null, metadata: { reason: 'unknown_email' } });
    throw invalidCredentials();
  }
  const { passwordHash, lockedUntil, failedLoginAttempts, ...user } = found;
  const who = { userId: user.id, username: user.username };

  if (lockedUntil && lockedUntil.getTime() > Date.now()) {
    void logActivity({ req, category: 'auth', action: 'login_locked', success: false, ...who });
    throw lockedError(lockedUntil.getTime() - Date.now());
  }

  if (!(await bcrypt.compare(password, passwordHash))) {
    const after = await recordFailedLogin(user.id);
    if (after.remainingMs !== null && after.remainingMs > 0) {
      void logActivity({ req, category: 'auth', action: 'account_locked', success: false, ...who, metadata: { attempts: after.failedLoginAttempts } });
      throw lockedError(after.remainingMs);
    }
    void logActivity({ req, category: 'auth', action: 'login_failed', success: false, ...who, metadata: { reason: 'wrong_password', attempts: after.failedLoginAttempts } });
    throw invalidCredentials();
  }

  if (failedLoginAttempts > 0 || lockedUntil) {
    await prisma.user.update({ where: { id: user.id }, data: { failedLoginAttempts: 0, lockedUntil: null } });
  }
  void logActivity({ req, category: 'auth', action: 'login', ...who });
  return { token: signAccessToken(user), user };
}

const invalidVerificationToken = () => new AppError('INVALID_VERIFICATION_TOKEN');
const invalidVerificationCode = () => new AppError('INVALID_VERIFICATION_CODE');

export async function verifyEmailToken(req: Request, token: string) {
  const hash = sha256(token);
  const user = await prisma.user.findUnique({
    where: { verificationTokenHash: hash },
    select: { id: true, username: true, verificationExpiresAt: true },
  });
  if (!user || !user.verificationExpiresAt || user.verificationExpiresAt.getTime() <= Date.now()) {
    void logActivity({ req, category: 'auth', action: 'email_verify', success: false, userId: user?.id ?? null, username: user?.username ?? null, metadata: { method: 'link' } });
    throw invalidVerificationToken();
  }
  // Conditional on the same token: single use even under concurrency.
  const { count } = await prisma.user.updateMany({
    where: { id: user.id, verificationTokenHash: hash },
    data: { emailVerified: true, ...clearedVerification },
  });
  if (count === 0) throw invalidVerificationToken();
  void logActivity({ req, category: 'auth', action: 'email_verify', userId: user.id, username: user.username, metadata: { method: 'link' } });
}

function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Every code attempt is counted first (atomic UPDATE … RETURNING), then compared, so at
 * most MAX_CODE_ATTEMPTS guesses per issued code, also with parallel requests.
 */
export async function verifyEmailCode(req: Request, email: string, code: string) {
  const rows = await prisma.$queryRaw<{ id: number; username: string; verificationCodeHash: string }[]>`
    UPDATE "User" SET "verificationAttempts" = "verificationAttempts" + 1
    WHERE "email" = ${email}
      AND "verificationCodeHash" IS NOT NULL
      AND "verificationExpiresAt" > now()
      AND "verificationAttempts" < ${MAX_CODE_ATTEMPTS}
    RETURNING "id", "username", "verificationCodeHash"`;
  const row = rows[0];
  if (!row || !sameHash(row.verificationCodeHash, sha256(code))) {
    void logActivity({ req, category: 'auth', action: 'email_verify', success: false, userId: row?.id ?? null, username: row?.username ?? null, metadata: { method: 'code' } });
    throw invalidVerificationCode();
  }
  const { count } = await prisma.user.updateMany({
    where: { id: row.id, verificationCodeHash: row.verificationCodeHash },
    data: { emailVerified: true, ...clearedVerification },
  });
  if (count === 0) throw invalidVerificationCode();
  void logActivity({ req, category: 'auth', action: 'email_verify', userId: row.id, username: row.username, metadata: { method: 'code' } });
}

export const RESEND_MESSAGE = 'If an unverified account exists for this email, a new verification email has been sent';
export const RESET_REQUEST_MESSAGE = 'If an account exists for this email, a password reset link has been sent';

/** Same answer whether or not the address exists (no account enumeration). */
export async function resendVerification(req: Request, email: string): Promise<void> {
  const user = await prisma.user.findUnique({ where: { email }, select: { id: true, username: true, email: true, emailVerified: true } });
  if (!user || user.emailVerified) {
    void logActivity({ req, category: 'auth', action: 'verification_resend', success: false, userId: user?.id ?? null, username: user?.username ?? null, metadata: { reason: user ? 'already_verified' : 'unknown_email' } });
    return;
  }
  const verification = newVerification();
  await prisma.user.update({ where: { id: user.id }, data: verification.stored });
  void logActivity({ req, category: 'auth', action: 'verification_resend', userId: user.id, username: user.username });
  void sendMailInBackground(verificationMail(config.frontendUrl, user.email, user.username, verification.token, verification.code), { userId: user.id });
}

export async function requestPasswordReset(req: Request, email: string): Promise<void> {
  const user = await prisma.user.findUnique({ where: { email }, select: { id: true, username: true, email: true } });
  if (!user) {
    void logActivity({ req, category: 'auth', action: 'password_reset_request', success: false, userId: null, username: null, metadata: { reason: 'unknown_email' } });
    return;
  }
  const reset = newResetToken();
  await prisma.user.update({ where: { id: user.id }, data: reset.stored });
  void logActivity({ req, category: 'auth', action: 'password_reset_request', userId: user.id, username: user.username });
  void sendMailInBackground(passwordResetMail(config.frontendUrl, user.email, user.username, reset.token), { userId: user.id });
}

/** Single use (conditional update on the token hash); also clears the lock and the counter. */
export async function resetPassword(req: Request, token: string, newPassword: string): Promise<void> {
  const hash = sha256(token);
  const user = await prisma.user.findUnique({ where: { resetTokenHash: hash }, select: { id: true, username: true, resetExpiresAt: true } });
  const invalid = () => new AppError('INVALID_RESET_TOKEN');
  if (!user || !user.resetExpiresAt || user.resetExpiresAt.getTime() <= Date.now()) {
    void logActivity({ req, category: 'auth', action: 'password_reset', success: false, userId: user?.id ?? null, username: user?.username ?? null });
    throw invalid();
  }
  const passwordHash = await bcrypt.hash(newPassword, config.bcryptRounds);
  const { count } = await prisma.user.updateMany({
    where: { id: user.id, resetTokenHash: hash, resetExpiresAt: { gt: new Date() } },
    data: { passwordHash, resetTokenHash: null, resetExpiresAt: null, failedLoginAttempts: 0, lockedUntil: null },
  });
  if (count === 0) throw invalid();
  void logActivity({ req, category: 'auth', action: 'password_reset', userId: user.id, username: user.username });
}

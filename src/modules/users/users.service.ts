import bcrypt from 'bcryptjs';
import type { Request } from 'express';
import { config } from '../../config/index.js';
import { signAccessToken } from '../../lib/auth.js';
import { AppError } from '../../lib/errors.js';
import { sendMailInBackground, verificationMail } from '../../lib/mailer.js';
import { prisma } from '../../lib/prisma.js';
import { isUniqueViolation } from '../../lib/prisma-errors.js';
import { logActivity } from '../activity-log/activity-log.service.js';
import { newVerification } from '../auth/auth.tokens.js';

/** The user object of register, login and /users/me (DECISIONS.md "Users"). Never hashes or lock data. */
export const userObjectSelect = {
  id: true,
  username: true,
  email: true,
  firstName: true,
  lastName: true,
  registryId: true,
  avatar: true,
  city: true,
  country: true,
  instagramUrl: true,
  facebookUrl: true,
  youtubeUrl: true,
  tiktokUrl: true,
  emailVerified: true,
  isAdmin: true,
  createdAt: true,
} as const;

/** Public profile: no e-mail, verification state, admin flag or lock data. */
export const publicProfileSelect = {
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

const round2 = (n: number | null | undefined) => (n == null ? null : Math.round(n * 100) / 100);

/** Match and rating statistics, counted by the database (groupBy / aggregate), never by loading rows. */
export async function userStats(userId: number, { includePending = true } = {}): Promise<UserStats> {
  const [byStatus, received, given] = await Promise.all([
    prisma.match.groupBy({
      by: ['status'],
      where: { OR: [{ user1Id: userId }, { user2Id: userId }] },
      _count: { _all: true },
    }),
    prisma.rating.aggregate({ where: { ratedId: userId }, _count: { _all: true }, _avg: { score: true } }),
    prisma.rating.count({ where: { raterId: userId } }),
  ]);
  const count = (status: string) => byStatus.find((g) => g.status === status)?._count._all ?? 0;
  const total = byStatus.reduce((sum, g) => sum + g._count._all, 0);
  const matches: UserStats['matches'] = includePending
    ? { total, pending: count('pending'), accepted: count('accepted'), completed: count('completed') }
    : { total, accepted: count('accepted'), completed: count('completed') };
  return {
    matches,
    ratings: { received: received._count._all, given, average: round2(received._avg.score) },
  };
}

export async function getMe(userId: number) {
  const [user, stats] = await Promise.all([
    prisma.user.findUnique({ where: { id: userId }, select: userObjectSelect }),
    userStats(userId),
  ]);
  if (!user) throw new AppError('USER_NOT_FOUND');
  return { ...user, stats };
}

export async function getPublicProfile(username: string) {
  const user = await prisma.user.findUnique({ where: { username }, select: publicProfileSelect });
  if (!user) throw new AppError('USER_NOT_FOUND');
  return { ...user, stats: await userStats(user.id, { includePending: false }) };
}

export const RATINGS_LIMIT = 50;

export async function getUserRatings(username: string) {
  const user = await prisma.user.findUnique({ where: { username }, select: { id: true } });
  if (!user) throw new AppError('USER_NOT_FOUND');
  const [summary, ratings] = await Promise.all([
    prisma.rating.aggregate({ where: { ratedId: user.id }, _count: { _all: true }, _avg: { score: true } }),
    prisma.rating.findMany({
      where: { ratedId: user.id },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: RATINGS_LIMIT,
      select: {
        id: true,
        score: true,
        comment: true,
        wouldCollaborateAgain: true,
        createdAt: true,
        rater: { select: { id: true, username: true, avatar: true } },
        event: { select: { id: true, slug: true, name: true } },
      },
    }),
  ]);
  return { averageScore: round2(summary._avg.score), totalRatings: summary._count._all, ratings };
}

export interface ProfileUpdate {
  firstName?: string | null;
  lastName?: string | null;
  email?: string;
  city?: string | null;
  country?: string | null;
  instagramUrl?: string | null;
  facebookUrl?: string | null;
  youtubeUrl?: string | null;
  tiktokUrl?: string | null;
}

const PROFILE_FIELDS = ['firstName', 'lastName', 'city', 'country', 'instagramUrl', 'facebookUrl', 'youtubeUrl', 'tiktokUrl'] as const;

/**
 * Updates the editable profile fields (a whitelist: isAdmin, emailVerified, username … in
 * the body never reach the database). A new e-mail resets emailVerified, issues a new
 * link token and code, mails them and returns a fresh JWT.
 */
export async function updateProfile(req: Request, userId: number, body: Record<string, unknown>) {
  const data: Record<string, unknown> = {};
  for (const field of PROFILE_FIELDS) {
    if (body[field] === undefined) continue;
    const value = body[field] as string | null;
    data[field] = value === null || value === '' ? null : value;
  }
  const current = await prisma.user.findUnique({ where: { id: userId }, select: { email: true, username: true } });
  if (!current) throw new AppError('USER_NOT_FOUND');

  const newEmail = typeof body.email === 'string' ? body.email : undefined;
  const emailChanged = newEmail !== undefined && newEmail !== current.email;
  let verification: ReturnType<typeof newVerification> | undefined;
  if (emailChanged) {
    verification = newVerification();
    Object.assign(data, { email: newEmail, emailVerified: false, ...verification.stored });
  }

  let user;
  try {
    user = await prisma.user.update({ where: { id: userId }, data, select: userObjectSelect });
  } catch (err) {
    if (isUniqueViolation(err, 'email')) throw new AppError('EMAIL_TAKEN');
    throw err;
  }

  void logActivity({
    req,
    category: 'auth',
    action: emailChanged ? 'email_change' : 'profile_update',
    metadata: { fields: Object.keys(data).filter((k) => !k.startsWith('verification') && k !== 'emailVerified') },
  });
  if (emailChanged && verification) {
    void sendMailInBackground(verificationMail(config.frontendUrl, user.email, user.username, verification.token, verification.code), {
      userId,
    });
    return { ...user, token: signAccessToken(user) };
  }
  return user;
}

export async function changePassword(req: Request, userId: number, currentPassword: string, newPassword: string) {
  const user = await prisma.user.findUnique({ where: { id: userId }, select: { passwordHash: true } });
  if (!user) throw new AppError('USER_NOT_FOUND');
  if (!(await bcrypt.compare(currentPassword, user.passwordHash))) {
    void logActivity({ req, category: 'auth', action: 'password_change', success: false, metadata: { reason: 'wrong_current_password' } });
    throw new AppError('WRONG_PASSWORD');
  }
  const passwordHash = await bcrypt.hash(newPassword, config.bcryptRounds);
  // A pending reset link is void once the password was changed.
  await prisma.user.update({ where: { id: userId }, data: { passwordHash, resetTokenHash: null, resetExpiresAt: null } });
  void logActivity({ req, category: 'auth', action: 'password_change' });
}


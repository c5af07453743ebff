import type { NextFunction, Request, Response } from 'express';
import { config } from '../config/index.js';
import { authenticateToken, bearerToken, type AuthUser } from '../lib/auth.js';
import { forbidden, Messages, unauthorized } from '../lib/errors.js';
import { prisma } from '../lib/prisma.js';

/** Requires a valid Bearer token: 401 "Authentication required" / "Invalid or expired token". */
export async function requireAuth(req: Request, _res: Response, next: NextFunction): Promise<void> {
  const token = bearerToken(req.headers.authorization);
  if (!token) throw unauthorized();
  req.user = await authenticateToken(token);
  next();
}

/** Sets req.user when a valid token is sent; anonymous otherwise (an invalid token is still refused). */
export async function optionalAuth(req: Request, _res: Response, next: NextFunction): Promise<void> {
  if (req.headers.authorization === undefined) return next();
  return requireAuth(req, _res, next);
}

/** After requireAuth: 403 "Admin access required" for non-admins. */
export function requireAdmin(req: Request, _res: Response, next: NextFunction): void {
  if (!req.user?.isAdmin) throw forbidden(Messages.adminRequired, 'ADMIN_REQUIRED');
  next();
}

/**
 * After requireAuth: 403 "Email verification required" unless the e-mail is verified.
 * Checked against the database, not a token claim: requireAuth loaded the user from the
 * database for this request. Switched off by REQUIRE_EMAIL_VERIFICATION=false.
 */
export function requireVerifiedEmail(req: Request, _res: Response, next: NextFunction): void {
  if (config.requireEmailVerification && !currentUser(req).emailVerified) {
    throw forbidden(Messages.emailVerificationRequired, 'EMAIL_NOT_VERIFIED');
  }
  next();
}

/** Same rule for socket handlers, whose user was loaded at connect and may be stale. */
export async function isEmailVerified(userId: number): Promise<boolean> {
  if (!config.requireEmailVerification) return true;
  const row = await prisma.user.findUnique({ where: { id: userId }, select: { emailVerified: true } });
  return row?.emailVerified ?? false;
}

/** The authenticated caller; only call after requireAuth. */
export function currentUser(req: Request): AuthUser {
  if (!req.user) throw unauthorized();
  return req.user;
}

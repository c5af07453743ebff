import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { bearerToken, type AuthUser, type TokenAuthenticator } from '../lib/auth.js';
import { AppError } from '../lib/errors.js';
import type { ReadCache } from '../lib/read-cache.js';
import { laneAuth } from './cached-read.js';

export interface AuthGuards {
  /** Requires a valid Bearer token: 401 "Authentication required" / "Invalid or expired token". */
  requireAuth: RequestHandler;
  /** Sets req.user when a token is sent; anonymous otherwise (an invalid token is still refused). */
  optionalAuth: RequestHandler;
  /** After requireAuth: 403 "Admin access required" for non-admins. */
  requireAdmin: RequestHandler;
  /**
   * After requireAuth: 403 "Email verification required" unless the e-mail is verified.
   * Checked against the user requireAuth loaded from the database for this request, not a
   * token claim. Switched off by REQUIRE_EMAIL_VERIFICATION=false.
   */
  requireVerifiedEmail: RequestHandler;
}

export function createAuthGuards(
  tokens: TokenAuthenticator,
  options: { requireEmailVerification: boolean },
  readCache?: ReadCache,
): AuthGuards {
  const requireAuth = async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const token = bearerToken(req.headers.authorization);
    if (!token) throw new AppError('AUTH_REQUIRED');
    // the hot lane checked this read's session already, after the same fence (src/middleware/cached-read.ts)
    const checked = laneAuth(res);
    if (checked) {
      if ('error' in checked) throw checked.error;
      req.user = checked.user;
      return next();
    }
    // reads (GET) may take the user from the exact read cache, after the request's fence
    // (src/lib/read-cache.ts); every other request reads it from the database
    const fresh = readCache !== undefined && req.method === 'GET' && (await readCache.freshFor(res));
    req.user = await tokens.authenticate(token, fresh ? readCache : undefined);
    next();
  };
  return {
    requireAuth,
    optionalAuth: async (req, res, next) => {
      if (req.headers.authorization === undefined) return next();
      return requireAuth(req, res, next);
    },
    requireAdmin: (req, _res, next) => {
      if (!req.user?.isAdmin) throw new AppError('ADMIN_REQUIRED');
      next();
    },
    requireVerifiedEmail: (req, _res, next) => {
      if (options.requireEmailVerification && !currentUser(req).emailVerified) throw new AppError('EMAIL_NOT_VERIFIED');
      next();
    },
  };
}

/** The authenticated caller; only call after requireAuth. */
export function currentUser(req: Request): AuthUser {
  if (!req.user) throw new AppError('AUTH_REQUIRED');
  return req.user;
}

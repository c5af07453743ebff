import type { CookieOptions, NextFunction, Request, RequestHandler, Response } from 'express';
import { doubleCsrf } from 'csrf-csrf';
import type { Config } from '../config/index.js';
import { AppError } from '../lib/errors.js';
import { randomToken } from '../lib/ids.js';

/**
 * CSRF protection with csrf-csrf (stateless double-submit cookie; `csurf` is deprecated
 * upstream). GET /api/csrf-token answers `data: { csrfToken }` and sets the token cookie;
 * every POST, PUT, PATCH and DELETE under /api must send the same token in `X-CSRF-Token`,
 * else 403 "Invalid CSRF token" (code CSRF_INVALID). Switched by CSRF_ENABLED.
 *
 * The token is an HMAC over a per-client identifier: the service has no sessions and most
 * callers are anonymous (login, register), so the identifier is a random value kept in its
 * own httpOnly cookie, issued together with the first token. A token stolen without that
 * cookie (or a cookie planted without the secret) does not validate.
 */
export interface Csrf {
  protection: RequestHandler;
  /** Issues (or re-issues) the CSRF token and its cookies; returns the token. */
  issueToken(req: Request, res: Response): string;
}

const cookieNames = (secure: boolean) => {
  const prefix = secure ? '__Host-' : '';
  return { token: `${prefix}wcs.x-csrf-token`, client: `${prefix}wcs.csrf-client` };
};

export function createCsrf(config: Config): Csrf {
  const secureCookies = config.isProduction;
  const names = cookieNames(secureCookies);
  const cookieOptions: CookieOptions = { httpOnly: true, sameSite: 'strict', secure: secureCookies, path: '/' };
  const { generateCsrfToken, doubleCsrfProtection } = doubleCsrf({
    getSecret: () => config.csrf.secret,
    getSessionIdentifier: (req) => (req.cookies as Record<string, string> | undefined)?.[names.client] ?? '',
    cookieName: names.token,
    cookieOptions,
    getCsrfTokenFromRequest: (req) => req.headers['x-csrf-token'],
    skipCsrfProtection: () => !config.csrf.enabled,
  });

  const protection: RequestHandler = (req: Request, res: Response, next: NextFunction) => {
    doubleCsrfProtection(req, res, (err?: unknown) => {
      if (err) return next(new AppError('CSRF_INVALID'));
      next();
    });
  };

  const issueToken = (req: Request, res: Response): string => {
    const cookies = (req.cookies ?? {}) as Record<string, string>;
    req.cookies = cookies;
    if (!cookies[names.client]) {
      const clientId = randomToken(18);
      cookies[names.client] = clientId;
      res.cookie(names.client, clientId, cookieOptions);
    }
    return generateCsrfToken(req, res);
  };
  return { protection, issueToken };
}

/** Cookie names outside production (tests read them). */
export const CSRF_COOKIE = cookieNames(false).token;
export const CSRF_CLIENT_COOKIE = cookieNames(false).client;

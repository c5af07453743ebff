import type { CookieOptions, NextFunction, Request, RequestHandler, Response } from 'express';
import { doubleCsrf } from 'csrf-csrf';
import { config } from '../config/index.js';
import { AppError } from '../lib/errors.js';
import { randomToken } from '../lib/ids.js';

/**
 * CSRF protection with csrf-csrf (stateless double-submit cookie; `csurf` is deprecated
 * upstream). GET /api/csrf-token answers `data: { csrfToken }` and sets the token cookie;
 * every POST, PUT, PATCH and DELETE under /api must send the same token in `X-CSRF-Token`,
 * else 403 "Invalid CSRF token" (code CSRF_INVALID). Switched by CSRF_ENABLED (read per request).
 *
 * The token is an HMAC over a per-client identifier: the service has no sessions and most
 * callers are anonymous (login, register), so the identifier is a random value kept in its
 * own httpOnly cookie, issued together with the first token. A token stolen without that
 * cookie (or a cookie planted without the secret) does not validate.
 */
const secureCookies = config.isProduction;
const prefix = secureCookies ? '__Host-' : '';
export const CSRF_COOKIE = `${prefix}wcs.x-csrf-token`;
export const CSRF_CLIENT_COOKIE = `${prefix}wcs.csrf-client`;

const cookieOptions: CookieOptions = { httpOnly: true, sameSite: 'strict', secure: secureCookies, path: '/' };

const { generateCsrfToken, doubleCsrfProtection } = doubleCsrf({
  getSecret: () => config.csrf.secret,
  getSessionIdentifier: (req) => (req.cookies as Record<string, string> | undefined)?.[CSRF_CLIENT_COOKIE] ?? '',
  cookieName: CSRF_COOKIE,
  cookieOptions,
  getCsrfTokenFromRequest: (req) => req.headers['x-csrf-token'],
  skipCsrfProtection: () => !config.csrf.enabled,
});

export const csrfProtection: RequestHandler = (req: Request, res: Response, next: NextFunction) => {
  doubleCsrfProtection(req, res, (err?: unknown) => {
    if (err) return next(new AppError(403, 'Invalid CSRF token', 'CSRF_INVALID'));
    next();
  });
};

/** Issues (or re-issues) the CSRF token and its cookies; returns the token. */
export function issueCsrfToken(req: Request, res: Response): string {
  const cookies = (req.cookies ?? {}) as Record<string, string>;
  req.cookies = cookies;
  if (!cookies[CSRF_CLIENT_COOKIE]) {
    const clientId = randomToken(18);
    cookies[CSRF_CLIENT_COOKIE] = clientId;
    res.cookie(CSRF_CLIENT_COOKIE, clientId, cookieOptions);
  }
  return generateCsrfToken(req, res);
}

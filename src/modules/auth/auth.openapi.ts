import { dataOf, json, messageAndData, obj, operation, ref, str } from '../../docs/openapi-helpers.js';

import {
  emailInput,
  loginInput,
  registerInput,
  resetPasswordInput,
  verifyCodeInput,
  verifyEmailInput,
} from './auth.schemas.js';

/** OpenAPI paths of this feature (merged by src/docs/openapi.ts); request schemas come from the input declarations. */
const userObject =
  'User object: `{ id, username, email, firstName, lastName, registryId, avatar, city, country, instagramUrl, facebookUrl, youtubeUrl, tiktokUrl, emailVerified, isAdmin, createdAt }` — never a hash, token, code, lock or attempt counter.';

const csrfNote =
  'When CSRF_ENABLED, every POST/PUT/PATCH/DELETE under /api (these included) needs header `X-CSRF-Token` matching the cookies set by GET /csrf-token, else 403 "Invalid CSRF token" (code CSRF_INVALID).';

const verified = { emailVerified: { const: true } };

export const authOpenApi: Record<string, unknown> = {
  '/csrf-token': {
    get: operation('get', {
      tags: ['auth'],
      summary: 'Issue a CSRF token (double-submit cookie, csrf-csrf)',
      access: 'public',
      description:
        'Answers `data: { csrfToken }` and sets two httpOnly, SameSite=Strict cookies: the token cookie and a random per-client id the token is bound to (`__Host-` prefixed and Secure in production). The same client gets the same token back while its cookies are valid; on 403 CSRF_INVALID, fetch a fresh token and retry once. ' +
        csrfNote,
      ok: { '200': json(dataOf(obj({ csrfToken: str }))) },
    }),
  },
  '/auth/register': {
    post: operation('post', {
      tags: ['auth'],
      summary: 'Register',
      access: 'public',
      description:
        'Other fields (`isAdmin`, `emailVerified`, …) are ignored. Sends the verification mail (link `{FRONTEND_URL}/verify-email?token=…` and a 6-digit code, valid 24 h): the mail is queued with the account and sent right after, retried while the mail server is unreachable (at least once: a retry can deliver the same mail twice, both copies valid); the answer never waits for the mail server. Rate limit: auth tier. ' +
        userObject,
      body: registerInput.openapi.body,
      ok: { '201': json(dataOf(ref('AuthResult')), 'Registered: a JWT (HS256, 24 h) and the user') },
      errors: {
        400: ['VALIDATION_ERROR', 'CAPTCHA_FAILED'],
        409: ['EMAIL_TAKEN', 'USERNAME_TAKEN'],
        503: ['CAPTCHA_UNAVAILABLE'],
      },
    }),
  },
  '/auth/login': {
    post: operation('post', {
      tags: ['auth'],
      summary: 'Log in',
      access: 'public',
      description:
        'A wrong password and an unknown e-mail both answer 401 "Invalid email or password" (INVALID_CREDENTIALS). Every attempt on an unlocked account is counted atomically before the password is compared (so parallel attempts cannot get past the limit), and a successful login resets the counter; the attempt that reaches LOCKOUT_MAX_ATTEMPTS (default 5) locks the account for LOCKOUT_MINUTES (default 15) and already answers 423. While locked, every login (right password too) answers 423 "Account is locked. Try again in N minute(s)." (N rounded up) with `retryAfter` (seconds) in the body and a `Retry-After` header; the lock ends by itself. Password hashing runs with bounded concurrency: when too many logins wait for it, 503 SERVICE_UNAVAILABLE with a `Retry-After` header. Rate limit: auth tier.',
      body: loginInput.openapi.body,
      ok: { '200': json(dataOf(ref('AuthResult'))) },
      errors: { 400: ['VALIDATION_ERROR'], 401: ['INVALID_CREDENTIALS'] },
      extra: {
        '403': json(
          {
            oneOf: [
              ref('AccountSuspendedError'),
              { allOf: [ref('Error'), { properties: { code: { enum: ['CSRF_INVALID'] } } }] },
            ],
          },
          'ACCOUNT_SUSPENDED: "Account suspended" with `until` (ISO, or null when indefinite), only after the right password (a wrong one answers 401 as usual; see docs/moderation.md); CSRF_INVALID: "Invalid CSRF token"',
        ),
        '423': json(
          ref('AccountLockedError'),
          'Account locked (ACCOUNT_LOCKED), with `retryAfter` and a `Retry-After` header',
        ),
      },
    }),
  },
  '/auth/verify-email': {
    get: operation('get', {
      tags: ['auth'],
      summary: 'Verify the e-mail address with the link token',
      access: 'public',
      parameters: verifyEmailInput.openapi.parameters,
      description:
        'Single use. Sets emailVerified=true and voids the token and the code. Failed attempts are written to the activity log at most once per IP address and minute (metadata `failures`: how many the entry stands for).',
      ok: { '200': json(messageAndData(['Email verified'], verified)) },
      errors: { 400: ['INVALID_VERIFICATION_TOKEN', 'VALIDATION_ERROR'] },
    }),
  },
  '/auth/verify-code': {
    post: operation('post', {
      tags: ['auth'],
      summary: 'Verify the e-mail address with the 6-digit code',
      access: 'public',
      description:
        'Each attempt counts; after 5 attempts the code is void until a resend. An unknown e-mail answers like a wrong code.',
      body: verifyCodeInput.openapi.body,
      ok: { '200': json(messageAndData(['Email verified'], verified)) },
      errors: { 400: ['INVALID_VERIFICATION_CODE', 'VALIDATION_ERROR'] },
    }),
  },
  '/auth/resend-verification': {
    post: operation('post', {
      tags: ['auth'],
      summary: 'Send a new verification link and code',
      access: 'public',
      description:
        'Replaces the previous token and code (valid 24 h). Always the same 200 answer whether or not the address exists or is already verified (no account enumeration); a mail goes only to an existing unverified account. Rate limit: e-mail tier.',
      body: emailInput.openapi.body,
      ok: {
        '200': json(
          messageAndData(['If an unverified account exists for this email, a new verification email has been sent']),
        ),
      },
      errors: { 400: ['VALIDATION_ERROR'] },
    }),
  },
  '/auth/request-password-reset': {
    post: operation('post', {
      tags: ['auth'],
      summary: 'Mail a password-reset link',
      access: 'public',
      description:
        'Mails `{FRONTEND_URL}/reset-password?token=…` (valid 1 h, single use; a newer request replaces it). Always the same 200 answer. Rate limit: e-mail tier.',
      body: emailInput.openapi.body,
      ok: { '200': json(messageAndData(['If an account exists for this email, a password reset link has been sent'])) },
      errors: { 400: ['VALIDATION_ERROR'] },
    }),
  },
  '/auth/reset-password': {
    post: operation('post', {
      tags: ['auth'],
      summary: 'Set a new password with the reset token',
      access: 'public',
      description:
        'Single use; also clears the account lock and the failed-login counter, and ends every earlier session (older tokens answer 401, their sockets are disconnected).',
      body: resetPasswordInput.openapi.body,
      ok: { '200': json(messageAndData(['Password has been reset'])) },
      errors: { 400: ['INVALID_RESET_TOKEN', 'VALIDATION_ERROR'] },
    }),
  },
};

/** OpenAPI paths of this feature (merged by src/docs/openapi.ts). */
const err = (description: string) => ({ description: `${description} (error envelope)` });

const userObject =
  'User object: `{ id, username, email, firstName, lastName, registryId, avatar, city, country, instagramUrl, facebookUrl, youtubeUrl, tiktokUrl, emailVerified, isAdmin, createdAt }` — never a hash, token, code, lock or attempt counter.';

const csrfNote =
  'When CSRF_ENABLED, every POST/PUT/PATCH/DELETE under /api (these included) needs header `X-CSRF-Token` matching the cookies set by GET /csrf-token, else 403 "Invalid CSRF token" (code CSRF_INVALID).';

const messageAnswer = (text: string) => ({
  description: `\`{ success: true, message: "${text}", data: { message } }\``,
});

export const authOpenApi: Record<string, unknown> = {
  '/csrf-token': {
    get: {
      tags: ['auth'],
      summary: 'Issue a CSRF token (double-submit cookie, csrf-csrf)',
      security: [],
      description:
        'Answers `data: { csrfToken }` and sets two httpOnly, SameSite=Strict cookies: the token cookie and a random per-client id the token is bound to (`__Host-` prefixed and Secure in production). The same client gets the same token back while its cookies are valid; on 403 CSRF_INVALID, fetch a fresh token and retry once. ' +
        csrfNote,
      responses: { '200': { description: '`{ success: true, data: { csrfToken } }`' } },
    },
  },
  '/auth/register': {
    post: {
      tags: ['auth'],
      summary: 'Register',
      security: [],
      description:
        'Body: `username` (3-50, ASCII letters, digits, underscore), `email` (valid; trimmed and lower-cased, nothing else), `password` (6 characters to 72 bytes), optional `firstName`, `lastName` (≤ 100), `registryId` (1-10 digits). Other fields (`isAdmin`, `emailVerified`, …) are ignored. Sends the verification mail (link `{FRONTEND_URL}/verify-email?token=…` and a 6-digit code, valid 24 h) in the background: an SMTP failure does not fail the registration (use resend). Rate limit: auth tier. ' +
        userObject,
      responses: {
        '201': { description: '`{ success: true, data: { token, user } }` (JWT HS256, 24 h)' },
        '400': err('"Validation failed" + details'),
        '409': err('"Email already registered" (EMAIL_TAKEN) / "Username already taken" (USERNAME_TAKEN)'),
        '429': err('rate limited'),
      },
    },
  },
  '/auth/login': {
    post: {
      tags: ['auth'],
      summary: 'Log in',
      security: [],
      description:
        'Body `{ email, password }`. A wrong password and an unknown e-mail both answer 401 "Invalid email or password" (INVALID_CREDENTIALS). Failed attempts are counted atomically; the attempt that reaches LOCKOUT_MAX_ATTEMPTS (default 5) locks the account for LOCKOUT_MINUTES (default 15) and already answers 423. While locked, every login (right password too) answers 423 "Account is locked. Try again in N minute(s)." (N rounded up) with `retryAfter` (seconds) in the body and a `Retry-After` header; the lock ends by itself. A successful login resets the counter. Rate limit: auth tier.',
      responses: {
        '200': { description: '`{ success: true, data: { token, user } }`' },
        '400': err('"Validation failed"'),
        '401': err('"Invalid email or password"'),
        '423': err('"Account is locked. Try again in N minute(s)." + retryAfter (ACCOUNT_LOCKED)'),
        '429': err('rate limited'),
      },
    },
  },
  '/auth/verify-email': {
    get: {
      tags: ['auth'],
      summary: 'Verify the e-mail address with the link token',
      security: [],
      parameters: [{ name: 'token', in: 'query', required: true, schema: { type: 'string' } }],
      description: 'Single use. Sets emailVerified=true and voids the token and the code.',
      responses: {
        '200': messageAnswer('Email verified'),
        '400': err('"Invalid or expired verification token" (INVALID_VERIFICATION_TOKEN), or "Validation failed" without a token'),
      },
    },
  },
  '/auth/verify-code': {
    post: {
      tags: ['auth'],
      summary: 'Verify the e-mail address with the 6-digit code',
      security: [],
      description:
        'Body `{ email, code }` (code: 6 digits). Each attempt counts; after 5 attempts the code is void until a resend. An unknown e-mail answers like a wrong code.',
      responses: {
        '200': messageAnswer('Email verified'),
        '400': err('"Invalid or expired verification code" (INVALID_VERIFICATION_CODE) or "Validation failed"'),
      },
    },
  },
  '/auth/resend-verification': {
    post: {
      tags: ['auth'],
      summary: 'Send a new verification link and code',
      security: [],
      description:
        'Body `{ email }`. Replaces the previous token and code (valid 24 h). Always the same 200 answer whether or not the address exists or is already verified (no account enumeration); a mail goes only to an existing unverified account. Rate limit: e-mail tier.',
      responses: { '200': messageAnswer('If an unverified account exists for this email, a new verification email has been sent'), '400': err('"Validation failed"'), '429': err('rate limited') },
    },
  },
  '/auth/request-password-reset': {
    post: {
      tags: ['auth'],
      summary: 'Mail a password-reset link',
      security: [],
      description:
        'Body `{ email }`. Mails `{FRONTEND_URL}/reset-password?token=…` (valid 1 h, single use; a newer request replaces it). Always the same 200 answer. Rate limit: e-mail tier.',
      responses: { '200': messageAnswer('If an account exists for this email, a password reset link has been sent'), '400': err('"Validation failed"'), '429': err('rate limited') },
    },
  },
  '/auth/reset-password': {
    post: {
      tags: ['auth'],
      summary: 'Set a new password with the reset token',
      security: [],
      description: 'Body `{ token, newPassword }` (6 characters to 72 bytes). Single use; also clears the account lock and the failed-login counter.',
      responses: {
        '200': messageAnswer('Password has been reset'),
        '400': err('"Invalid or expired reset token" (INVALID_RESET_TOKEN) or "Validation failed"'),
      },
    },
  },
};

import { dataOf, json, messageAndData, obj, operation, ref } from '../../docs/openapi-helpers.js';

import { changePasswordInput, updateProfileInput, usernameInput } from './users.schemas.js';

/** OpenAPI paths of this feature (merged by src/docs/openapi.ts); request schemas come from the input declarations. */
const stats =
  '`stats: { matches: { total, pending, accepted, completed }, ratings: { received, given, average } }` — counted by the database; `pending` counts both directions; `average` has 2 decimals or is null without ratings.';

export const usersOpenApi: Record<string, unknown> = {
  '/users/me': {
    get: operation('get', {
      tags: ['users'],
      summary: 'The current user with statistics',
      access: 'user',
      description: `\`data\` is the user object itself (as in register/login) plus ${stats}`,
      ok: { '200': json(dataOf(ref('Me'))) },
      errors: { 404: ['USER_NOT_FOUND'] },
    }),
    patch: operation('patch', {
      tags: ['users'],
      summary: 'Edit the profile',
      access: 'user',
      description:
        '`username` in the body → 400 (it cannot be changed); other fields (`isAdmin`, `emailVerified`, …) are ignored. Answers the updated user object. Changing the e-mail needs `currentPassword` (missing → 400 VALIDATION_ERROR with details, wrong → 400 "Current password is incorrect"; nothing is changed). ' +
        "A wrong `currentPassword` is a failed login attempt (the login's counter, LOCKOUT_MAX_ATTEMPTS, LOCKOUT_MINUTES): the attempt that reaches the maximum answers 423 ACCOUNT_LOCKED, and while the account is locked an e-mail change answers 423 whatever the password; a right one resets the counter. " +
        'With RATE_LIMIT_ENABLED, an e-mail change (an address other than the account\'s) counts in the auth tier and in the e-mail tier (429 RATE_LIMITED "Too many e-mail requests, please try again later"), other profile updates in neither; and per account at most EMAIL_CHANGE_MAX (3) e-mail changes in a rolling EMAIL_CHANGE_WINDOW_SECONDS (86400): the next → 429 EMAIL_CHANGE_LIMITED with `Retry-After` (seconds until the oldest counted change leaves the window), checked after the current password; nothing written, no mail. ' +
        'When the e-mail changes: emailVerified=false, a verification link and code are mailed to the new address (created when the mail is sent; earlier ones stop working), the old address is told of the change by mail, and `data.token` holds a fresh JWT (tokens issued before stay valid until they expire; verification is checked against the database).',
      body: updateProfileInput.openapi.body,
      ok: {
        '200': json(dataOf(ref('UpdatedUser')), 'The updated user; `token` only when the e-mail changed'),
      },
      errors: {
        400: ['VALIDATION_ERROR', 'WRONG_PASSWORD'],
        404: ['USER_NOT_FOUND'],
        409: ['EMAIL_TAKEN'],
        429: ['RATE_LIMITED', 'EMAIL_CHANGE_LIMITED'],
      },
      extra: {
        '423': json(
          ref('AccountLockedError'),
          'Account locked (ACCOUNT_LOCKED) by wrong current passwords or logins, with `retryAfter` and a `Retry-After` header',
        ),
      },
    }),
  },
  '/users/me/password': {
    patch: operation('patch', {
      tags: ['users'],
      summary: 'Change the password',
      access: 'user',
      description:
        'New password: 6 characters to 72 bytes. A wrong `currentPassword` is a failed login attempt (the login\'s counter and limits): the attempt that reaches LOCKOUT_MAX_ATTEMPTS answers 423 ACCOUNT_LOCKED, and while locked this route answers 423 whatever the password; a right one resets the counter. Rate limit: auth tier. Voids a pending password-reset link. Ends every earlier session: tokens issued before answer 401 "Invalid or expired token" and their sockets are disconnected; `data.token` is a fresh JWT so the caller stays signed in. Hashing is bounded (503 SERVICE_UNAVAILABLE with `Retry-After` when too many are waiting).',
      body: changePasswordInput.openapi.body,
      ok: {
        '200': json(messageAndData(['Password changed'], { token: { type: 'string', description: 'fresh JWT' } })),
      },
      errors: { 400: ['WRONG_PASSWORD', 'VALIDATION_ERROR'], 404: ['USER_NOT_FOUND'] },
      extra: {
        '423': json(
          ref('AccountLockedError'),
          'Account locked (ACCOUNT_LOCKED) by wrong current passwords or logins, with `retryAfter` and a `Retry-After` header',
        ),
      },
    }),
  },
  '/users/{username}': {
    get: operation('get', {
      tags: ['users'],
      summary: 'Public profile',
      access: 'user',
      parameters: usernameInput.openapi.parameters,
      description:
        'Stats as in /users/me but without `matches.pending`. Never e-mail, emailVerified, isAdmin or lock data. A user who blocked the caller answers 404 USER_NOT_FOUND, as an unknown username does.',
      ok: { '200': json(dataOf(ref('PublicProfile'))) },
      errors: { 400: ['VALIDATION_ERROR'], 404: ['USER_NOT_FOUND'] },
    }),
  },
  '/users/{username}/ratings': {
    get: operation('get', {
      tags: ['users'],
      summary: 'Ratings received by a user',
      access: 'user',
      parameters: usernameInput.openapi.parameters,
      description:
        'Newest first, at most 50 (average and total cover all ratings). A user who blocked the caller answers 404 USER_NOT_FOUND, as an unknown username does.',
      ok: {
        '200': json(
          dataOf(
            obj({
              averageScore: { type: ['number', 'null'], description: '2 decimals; null without ratings' },
              totalRatings: { type: 'integer' },
              ratings: {
                type: 'array',
                maxItems: 50,
                items: obj({
                  id: { type: 'integer' },
                  score: { type: 'integer', minimum: 1, maximum: 5 },
                  comment: { type: ['string', 'null'] },
                  wouldCollaborateAgain: { type: ['boolean', 'null'] },
                  createdAt: { type: 'string', format: 'date-time' },
                  rater: {
                    oneOf: [ref('UserBrief'), ref('DeletedUserBrief')],
                    description: 'the placeholder when the rater deleted the account (comment null)',
                  },
                  event: ref('EventRef'),
                }),
              },
            }),
          ),
        ),
      },
      errors: { 400: ['VALIDATION_ERROR'], 404: ['USER_NOT_FOUND'] },
    }),
  },
};

/** OpenAPI paths of this feature (merged by src/docs/openapi.ts). */
const err = (description: string) => ({ description: `${description} (error envelope)` });
const stats =
  '`stats: { matches: { total, pending, accepted, completed }, ratings: { received, given, average } }` — counted by the database; `pending` counts both directions; `average` has 2 decimals or is null without ratings.';

export const usersOpenApi: Record<string, unknown> = {
  '/users/me': {
    get: {
      tags: ['users'],
      summary: 'The current user with statistics',
      description: `\`data\` is the user object itself (as in register/login) plus ${stats}`,
      responses: { '200': { description: '`{ success: true, data: { ...user, stats } }`' }, '401': err('token missing or invalid') },
    },
    patch: {
      tags: ['users'],
      summary: 'Edit the profile',
      description:
        'Body (all optional): `firstName`, `lastName`, `city`, `country` (strings ≤ 100; null or "" clears), `email`, `instagramUrl`, `facebookUrl`, `youtubeUrl`, `tiktokUrl` (https URLs ≤ 500; null or "" clears). `username` in the body → 400 (it cannot be changed); other fields (`isAdmin`, `emailVerified`, …) are ignored. Answers the updated user object. When the e-mail changes: emailVerified=false, a new verification token and code are mailed to the new address, and `data.token` holds a fresh JWT (tokens issued before stay valid until they expire; verification is checked against the database).',
      responses: {
        '200': { description: '`{ success: true, data: { ...user, token? } }` (`token` only when the e-mail changed)' },
        '400': err('"Validation failed" + details (e.g. username, non-https link)'),
        '409': err('"Email already registered"'),
      },
    },
  },
  '/users/me/password': {
    patch: {
      tags: ['users'],
      summary: 'Change the password',
      description: 'Body `{ currentPassword, newPassword }` (new: 6 characters to 72 bytes). Voids a pending password-reset link.',
      responses: {
        '200': { description: '`{ success: true, message: "Password changed", data: { message } }`' },
        '400': err('"Current password is incorrect" (WRONG_PASSWORD) or "Validation failed"'),
      },
    },
  },
  '/users/{username}': {
    get: {
      tags: ['users'],
      summary: 'Public profile',
      parameters: [{ name: 'username', in: 'path', required: true, schema: { type: 'string' } }],
      description:
        '`data: { id, username, avatar, firstName, lastName, city, country, registryId, createdAt, instagramUrl, facebookUrl, youtubeUrl, tiktokUrl, stats }` with stats as in /users/me but without `matches.pending`. Never e-mail, emailVerified, isAdmin or lock data. Username match is exact (case-sensitive).',
      responses: { '200': { description: 'public profile' }, '404': err('"User not found"') },
    },
  },
  '/users/{username}/ratings': {
    get: {
      tags: ['users'],
      summary: 'Ratings received by a user',
      parameters: [{ name: 'username', in: 'path', required: true, schema: { type: 'string' } }],
      description:
        '`data: { averageScore (2 decimals or null), totalRatings, ratings: [{ id, score, comment, wouldCollaborateAgain, createdAt, rater: { id, username, avatar }, event: { id, slug, name } }] }`, newest first, at most 50 (average and total cover all ratings).',
      responses: { '200': { description: 'ratings' }, '404': err('"User not found"') },
    },
  },
};

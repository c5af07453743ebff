import { defineView, v, type ViewOf } from '../../lib/view.js';

/**
 * The views of accounts (owned table: User, with auth for the credential columns). Each is the
 * one declaration of its fields: the Prisma select, the SQL select list, the row type and the
 * OpenAPI schema come from it (src/lib/view.ts), so a new column of User stays private until it
 * is declared here.
 */

/**
 * The user object of register, login, PATCH /users/me and GET /users/me: the account's own data.
 * Never hashes, tokens or lock data.
 */
export const userObjectView = defineView(
  'User',
  {
    id: v.int(),
    username: v.str(),
    email: v.str().describe("the account's address, lower-cased", { format: 'email' }),
    firstName: v.nullStr(),
    lastName: v.nullStr(),
    registryId: v.nullStr(),
    avatar: v.str(),
    city: v.nullStr(),
    country: v.nullStr(),
    instagramUrl: v.nullStr(),
    facebookUrl: v.nullStr(),
    youtubeUrl: v.nullStr(),
    tiktokUrl: v.nullStr(),
    emailVerified: v.bool(),
    isAdmin: v.bool(),
    createdAt: v.dateTime(),
  },
  { alias: 'u' },
);
export type UserObject = ViewOf<typeof userObjectView>;

/** A public profile (GET /users/:username, without its stats): no e-mail, verification state, admin flag or lock data. */
export const publicProfileView = defineView(
  'PublicProfileFields',
  {
    id: v.int(),
    username: v.str(),
    avatar: v.str(),
    firstName: v.nullStr(),
    lastName: v.nullStr(),
    city: v.nullStr(),
    country: v.nullStr(),
    registryId: v.nullStr(),
    createdAt: v.dateTime(),
    instagramUrl: v.nullStr(),
    facebookUrl: v.nullStr(),
    youtubeUrl: v.nullStr(),
    tiktokUrl: v.nullStr(),
  },
  { alias: 'u' },
);
export type PublicProfileFields = ViewOf<typeof publicProfileView>;

/** The views registered as OpenAPI components under their names (src/docs/openapi.ts). */
export const usersViews = [userObjectView];

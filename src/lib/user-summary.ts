import { defineView, v, type ViewOf } from './view.js';

/**
 * The public summary of a user used in lists, notifications and suggestions (component
 * UserSummary): the one declaration of its fields, over u (User) unless a statement says otherwise.
 */
export const userSummaryView = defineView(
  'UserSummary',
  { id: v.int(), username: v.str(), avatar: v.str(), firstName: v.nullStr(), lastName: v.nullStr() },
  { alias: 'u' },
);
export const userSummarySelect = userSummaryView.select;
export type UserSummaryRow = ViewOf<typeof userSummaryView>;

/** What an avatar seed may hold (the route GET /api/avatars/:seed.svg accepts exactly these). */
export const AVATAR_SEED_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The avatar URL of a seed (the username as registered): the service's own avatar route under
 * PUBLIC_URL (docs/privacy.md), never a third-party host. Stored in User.avatar at registration;
 * src/modules/avatars/avatars.service.ts re-points stored URLs at start when PUBLIC_URL changed.
 */
export function avatarUrlFor(publicUrl: string, seed: string): string {
  return `${publicUrl}/api/avatars/${encodeURIComponent(seed)}.svg`;
}

/** The smallest reference to a user: id, username and avatar (e.g. a rater). */
export const userRefSelect = {
  id: true,
  username: true,
  avatar: true,
} as const;

/**
 * How a deleted account is shown where its traces stay (messages, ratings given, reports, the
 * activity log): the username "deleted-user" cannot be registered (usernames hold no hyphen).
 * Shared by privacy (account deletion) and moderation (reports, suspensions).
 */
export const DELETED_USER_SUMMARY = {
  id: null,
  username: 'deleted-user',
  avatar: null,
  firstName: null,
  lastName: null,
} as const;

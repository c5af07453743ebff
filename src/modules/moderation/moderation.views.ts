import { DELETED_USER_SUMMARY, userRefSelect, userSummarySelect } from '../../lib/user-summary.js';
import { defineView, v, type ViewOf } from '../../lib/view.js';

/**
 * Response views of the moderation feature (docs/moderation.md, moderation.openapi.ts). A user
 * who no longer exists is shown as the deleted-user placeholder (src/lib/user-summary.ts).
 */
export { userRefSelect, userSummarySelect };

export interface SummaryRow {
  id: number;
  username: string;
  avatar: string;
  firstName: string | null;
  lastName: string | null;
}

/** A user summary, or the placeholder of a deleted user. */
export const summaryOrDeleted = (user: SummaryRow | null | undefined) =>
  user
    ? { id: user.id, username: user.username, avatar: user.avatar, firstName: user.firstName, lastName: user.lastName }
    : { ...DELETED_USER_SUMMARY };

/** `{ id, username, avatar }`, or the placeholder's. */
export const refOrDeleted = (user: { id: number; username: string; avatar: string } | null | undefined) =>
  user
    ? { id: user.id, username: user.username, avatar: user.avatar }
    : { id: null, username: DELETED_USER_SUMMARY.username, avatar: null };

/**
 * An item of GET /users/me/blocks and the answer of POST /users/:username/block: the blocked
 * user's summary (read with userSummarySelect) and when the block was made (UserBlock.createdAt).
 * Inline in the document (moderation.openapi.ts), not a component.
 */
export const blockView = defineView(
  'Block',
  {
    id: v.int(),
    username: v.str(),
    avatar: v.str(),
    firstName: v.nullStr(),
    lastName: v.nullStr(),
    blockedAt: v.dateTime().describe('when the first block of this user was made'),
  },
  { alias: 'u' },
);
export type BlockView = ViewOf<typeof blockView>;

export const toBlockView = (user: SummaryRow, blockedAt: Date): BlockView => ({
  id: user.id,
  username: user.username,
  avatar: user.avatar,
  firstName: user.firstName,
  lastName: user.lastName,
  blockedAt,
});

import { DELETED_USER_SUMMARY } from '../../lib/user-summary.js';
import { defineView, v, type ViewOf } from '../../lib/view.js';

/*
 * The views of the chat (owned table: Message, and the event ChatRoom). Each is the one
 * declaration of its fields: the Prisma select, the SQL object, the row type and the OpenAPI
 * component come from it (src/lib/view.ts).
 */

/**
 * A message with its author, as history pages, acknowledgements and broadcasts send it (event
 * and private chats). Its SQL reads m (Message) and u (the author's User row, LEFT JOINed: none
 * once the author deleted the account, shown as the placeholder "deleted-user" with avatar null).
 */
export const messageView = defineView(
  'Message',
  {
    id: v.int().describe('increases with creation; the paging cursor'),
    roomId: v.int(),
    userId: v
      .nullInt()
      .describe('null (username "deleted-user", avatar null, content "[deleted]") once the author deleted the account'),
    username: v.str().sql(`coalesce(u.username, '${DELETED_USER_SUMMARY.username}')`),
    avatar: v.nullStr().sql('u.avatar'),
    content: v.str().describe('plain text, exactly as sent'),
    type: v.str(),
    createdAt: v.dateTime(),
  },
  { alias: 'm' },
);
export type MessageView = ViewOf<typeof messageView>;

/** A message of a match's private chat: the message view and its match (r: the message's ChatRoom). */
export const privateMessageView = defineView(
  'PrivateMessage',
  { ...messageView.fields, matchId: v.int().sql('r."matchId"') },
  { alias: 'm' },
);
export type PrivateMessageView = ViewOf<typeof privateMessageView>;

/** Every view of this feature, registered as OpenAPI components by src/docs/feature-schemas.ts. */
export const chatViews = [messageView, privateMessageView];

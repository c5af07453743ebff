import {
  dataOf,
  dateTime,
  json,
  listOf,
  messageOnly,
  nullDateTime,
  obj,
  operation,
  ref,
  str,
  type Schema,
} from '../../docs/openapi-helpers.js';
import {
  closeReportInput,
  createReportInput,
  listReportsInput,
  messageIdInput,
  suspendInput,
  usernameInput,
} from './moderation.schemas.js';
import { REPORTS_PAGE_SIZE } from './reports.service.js';
import { blockView } from './moderation.views.js';
import { reportQueueItemView, reportView, userBriefOrDeletedSchema } from './reports.views.js';

/** OpenAPI paths of the moderation feature (merged by src/docs/openapi.ts); docs/moderation.md tells the rules at length. */

/** The deleted-user placeholder's brief where a suspension names an admin who no longer exists (reports.views.ts). */
const briefOrDeleted: Schema = userBriefOrDeletedSchema;

const blockItem: Schema = blockView.schema;

// the report answers: the views of reports.views.ts (the request's targetId is the same value)
const reportFields = reportView.schema.properties as Record<string, Schema>;
const reportItem: Schema = reportQueueItemView.schema;

export const moderationOpenApi: Record<string, unknown> = {
  '/users/me/blocks': {
    get: operation('get', {
      tags: ['moderation'],
      summary: "The caller's blocks",
      access: 'user',
      description: 'Newest block first. Only the blocks the caller made, never who blocked the caller.',
      ok: { '200': json(listOf(blockItem)) },
    }),
  },
  '/users/{username}/block': {
    post: operation('post', {
      tags: ['moderation'],
      summary: 'Block a user',
      access: 'user',
      parameters: usernameInput.openapi.parameters,
      description: [
        'No body; no verified e-mail needed. While A blocks B or B blocks A (two independent blocks), neither can request a match',
        'with the other (403 USER_BLOCKED), matching never pairs them, a completed match keeps its history but its private chat and',
        "video hand-off are closed (USER_BLOCKED), neither sees the other's event-chat messages (live and in history), and the blocked",
        "user gets 404 on the blocker's profile and ratings. At the block every pending or accepted match of the pair (any event) is",
        'deleted exactly as DELETE /matches/{slug} by the blocker (the other member gets `match_cancelled`), in one transaction under',
        "the pair's lock shared with match requests. Silent: the blocked user is not told; blocks are not in the activity log.",
        'Answers 201 for a new block, 200 with the first `blockedAt` when it existed. Check order: unknown username 404 → oneself 400.',
      ].join(' '),
      ok: { '201': json(dataOf(blockItem), 'Blocked'), '200': json(dataOf(blockItem), 'Already blocked') },
      errors: { 400: ['BLOCK_SELF'], 404: ['USER_NOT_FOUND'] },
    }),
    delete: operation('delete', {
      tags: ['moderation'],
      summary: 'Unblock a user',
      access: 'user',
      parameters: usernameInput.openapi.parameters,
      description:
        "Removes the caller's block (also answers 200 when there was none). Restores history, live messages, profile, requests and matching from the next run; removed matches stay removed.",
      ok: { '200': json(messageOnly('User unblocked')) },
      errors: { 404: ['USER_NOT_FOUND'] },
    }),
  },
  '/reports': {
    post: operation('post', {
      tags: ['moderation'],
      summary: 'Report a user, a message or a match to the admins',
      access: 'user',
      description: [
        'No verified e-mail needed. Targets: any user but oneself (regardless of case; blocks notwithstanding; 404 USER_NOT_FOUND);',
        'a message the caller can read (event room of an event they participate in, or the private room of their match; unknown,',
        'unreadable or deleted → 404 MESSAGE_NOT_FOUND; their own → 400 REPORT_SELF); a match they are a member of (404 MATCH_NOT_FOUND).',
        'One open report per reporter and target (409 REPORT_EXISTS); again once the earlier one is closed. Check order: body 400 →',
        'target 404 / 400 → duplicate 409. Admins see it at once in the activity-log stream (`report_create`).',
      ].join(' '),
      body: createReportInput.openapi.body,
      ok: { '201': json(dataOf(obj(reportFields)), 'The report, status open') },
      errors: {
        400: ['REPORT_SELF'],
        404: ['USER_NOT_FOUND', 'MESSAGE_NOT_FOUND', 'MATCH_NOT_FOUND'],
        409: ['REPORT_EXISTS'],
      },
    }),
  },
  '/admin/reports': {
    get: operation('get', {
      tags: ['moderation', 'admin'],
      summary: 'The report queue',
      access: 'admin',
      parameters: listReportsInput.openapi.parameters,
      description: `Newest first (createdAt, then id), ${REPORTS_PAGE_SIZE} a page. An account that no longer exists shows as the deleted-user placeholder.`,
      ok: { '200': json(listOf(reportItem, { pagination: ref('Pagination') })) },
    }),
  },
  '/admin/reports/{id}': {
    patch: operation('patch', {
      tags: ['moderation', 'admin'],
      summary: 'Resolve or dismiss a report',
      access: 'admin',
      parameters: closeReportInput.openapi.parameters,
      description:
        'Only an open report can be closed (409 REPORT_NOT_OPEN); of two admins closing it at once one wins. The reporter is not told. Audited as `report_update`.',
      body: closeReportInput.openapi.body,
      ok: { '200': json(dataOf(reportItem), 'The closed report, as in the queue') },
      errors: { 404: ['REPORT_NOT_FOUND'], 409: ['REPORT_NOT_OPEN'] },
    }),
  },
  '/admin/users/{username}/suspend': {
    post: operation('post', {
      tags: ['moderation', 'admin'],
      summary: 'Suspend a user',
      access: 'admin',
      parameters: suspendInput.openapi.parameters,
      description: [
        "Every token issued before is refused from now on (401 INVALID_TOKEN), also after the suspension ends; the user's sockets are",
        'disconnected within 2 s. Login answers 403 ACCOUNT_SUSPENDED (with `until`) while it lasts; it ends by itself at `until`,',
        'or when lifted. Matching leaves the user out. Suspending again replaces reason and until. Check order: non-admin 403 →',
        'body 400 (reason missing, blank or too long; until not a timestamp or not in the future) → unknown username 404 → oneself 400',
        'SUSPEND_SELF → another admin 403 ADMIN_NOT_SUSPENDABLE. Audited as `user_suspend`.',
      ].join(' '),
      body: suspendInput.openapi.body,
      ok: {
        '200': json(
          dataOf(
            obj({
              user: ref('UserSummary'),
              suspended: { const: true },
              reason: str,
              until: nullDateTime,
              suspendedAt: dateTime,
              suspendedBy: briefOrDeleted,
            }),
          ),
        ),
      },
      errors: { 400: ['SUSPEND_SELF'], 403: ['ADMIN_NOT_SUSPENDABLE'], 404: ['USER_NOT_FOUND'] },
    }),
    delete: operation('delete', {
      tags: ['moderation', 'admin'],
      summary: 'Lift a suspension',
      access: 'admin',
      parameters: usernameInput.openapi.parameters,
      description:
        'Also answers 200 when the user is not suspended. Login works again at once (tokens of before the suspension stay refused). Audited as `user_unsuspend`.',
      ok: { '200': json(dataOf(obj({ user: ref('UserSummary'), suspended: { const: false } }))) },
      errors: { 404: ['USER_NOT_FOUND'] },
    }),
  },
  '/admin/messages/{id}': {
    delete: operation('delete', {
      tags: ['moderation', 'admin'],
      summary: 'Remove a chat message',
      access: 'admin',
      parameters: messageIdInput.openapi.parameters,
      description:
        'An event or private message. It no longer appears in any history (GET /events/{slug}/messages, `message_history`, GET /matches/{slug}/messages, `join_private_room`); its room (`event_<id>` or `match_<id>`) gets `message_deleted` `{ messageId }`. Reports keep their snapshot (`target.deleted: true`). Audited as `message_delete`.',
      ok: { '200': json(messageOnly('Message deleted')) },
      errors: { 404: ['MESSAGE_NOT_FOUND'] },
    }),
  },
};

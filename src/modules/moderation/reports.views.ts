import type { DELETED_USER_SUMMARY } from '../../lib/user-summary.js';
import { defineView, v, type ViewOf } from '../../lib/view.js';
import { REPORT_REASONS, REPORT_STATUSES, REPORT_TARGET_TYPES, REPORT_TEXT_MAX } from './moderation.schemas.js';

/*
 * The views of reports (table Report, owned by reports.service.ts): the answer of POST /reports
 * and an item of the admin queue. Each is the one declaration of its fields: the row type and
 * the schema of the answers (moderation.openapi.ts) come from it (src/lib/view.ts). The service
 * builds them from a report read with its users (a user who no longer exists is the
 * deleted-user placeholder of src/lib/user-summary.ts).
 */

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const nullable = (type: string) => ({ type: [type, 'null'] });
const object = (properties: Record<string, unknown>) => ({
  type: 'object',
  additionalProperties: false,
  required: Object.keys(properties),
  properties,
});

type UserSummaryOrDeleted =
  | { id: number; username: string; avatar: string; firstName: string | null; lastName: string | null }
  | typeof DELETED_USER_SUMMARY;
type UserBriefOrDeleted =
  | { id: number; username: string; avatar: string }
  | { id: null; username: typeof DELETED_USER_SUMMARY.username; avatar: null };

/** A user summary, or the deleted-user placeholder where a report names an account that no longer exists. */
export const userSummaryOrDeletedSchema = {
  oneOf: [
    ref('UserSummary'),
    object({
      id: { type: 'null' },
      username: { const: 'deleted-user' },
      avatar: { type: 'null' },
      firstName: { type: 'null' },
      lastName: { type: 'null' },
    }),
  ],
  description: 'a user summary, or the deleted-user placeholder',
};

/** `{ id, username, avatar }`, or the deleted-user placeholder's (also the admin of a suspension). */
export const userBriefOrDeletedSchema = {
  oneOf: [
    ref('UserBrief'),
    object({ id: { type: 'null' }, username: { const: 'deleted-user' }, avatar: { type: 'null' } }),
  ],
};

const eventSnapshot = object({ slug: nullable('string'), name: nullable('string') });

/** What a queue item's target shows: a user, a message snapshot, or a match. */
export type ReportTargetView =
  | UserSummaryOrDeleted
  | {
      id: number;
      content: string | null;
      createdAt: Date | null;
      deleted: boolean;
      author: UserSummaryOrDeleted;
      room: { id: number | null; type: string | null; event: { slug: string | null; name: string | null } };
    }
  | {
      slug: string | null;
      status: string;
      event: { slug: string | null; name: string | null };
      users: UserSummaryOrDeleted[];
    };

const reportTargetSchema = {
  oneOf: [
    userSummaryOrDeletedSchema,
    object({
      id: { type: 'integer' },
      content: nullable('string'),
      createdAt: { type: ['string', 'null'], format: 'date-time' },
      deleted: { type: 'boolean', description: 'removed by an admin, or gone with its match' },
      author: userSummaryOrDeletedSchema,
      room: object({
        id: { type: ['integer', 'null'] },
        type: { enum: ['event', 'private', null] },
        event: eventSnapshot,
      }),
    }),
    object({
      slug: nullable('string'),
      status: { enum: ['pending', 'accepted', 'completed', 'deleted'] },
      event: eventSnapshot,
      users: {
        type: 'array',
        items: userSummaryOrDeletedSchema,
        minItems: 2,
        maxItems: 2,
        description: '[requester, target]',
      },
    }),
  ],
  description:
    'user: the user summary. message: the snapshot taken when the report was made (content, author, room) and whether the message is deleted now. match: slug, status now ("deleted" once it no longer exists), event and [requester, target].',
};

/** A report as its reporter sees it (answer of POST /reports). */
export const reportView = defineView(
  'Report',
  {
    id: v.int(),
    status: v.oneOf(REPORT_STATUSES),
    targetType: v.oneOf(REPORT_TARGET_TYPES),
    targetId: v.json<string | number>({
      oneOf: [
        { type: 'string', minLength: 1, maxLength: 50 },
        { type: 'integer', minimum: 1, maximum: 2147483647 },
      ],
      description: 'a username (user), a message id (message, an integer), a match slug (match)',
    }),
    reason: v.oneOf(REPORT_REASONS),
    details: v.json<string>({ type: 'string', maxLength: REPORT_TEXT_MAX }),
    createdAt: v.dateTime(),
  },
  { alias: 'r' },
);
export type ReportView = ViewOf<typeof reportView>;

/** An item of the admin queue (GET /admin/reports, PATCH /admin/reports/:id). */
export const reportQueueItemView = defineView(
  'ReportQueueItem',
  {
    ...reportView.fields,
    reporter: v.json<UserSummaryOrDeleted>(userSummaryOrDeletedSchema),
    target: v.json<ReportTargetView>(reportTargetSchema),
    note: v.nullStr().describe('null until closed'),
    resolvedAt: v.nullDateTime().describe('when it was resolved or dismissed; null while open'),
    resolvedBy: v.json<UserBriefOrDeleted | null>({
      oneOf: [userBriefOrDeletedSchema, { type: 'null' }],
      description: 'the admin who closed it; null while open',
    }),
  },
  { alias: 'r' },
);
export type ReportQueueItem = ViewOf<typeof reportQueueItemView>;

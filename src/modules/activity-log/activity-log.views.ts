import { defineView, v, type ViewOf } from '../../lib/view.js';

/** The categories of activity-log entries. */
export const ACTIVITY_CATEGORIES = ['auth', 'event', 'match', 'admin', 'chat'] as const;

/**
 * An activity-log entry (table ActivityLog, owned by this feature): GET /admin/activity-logs and
 * the `activity_log_entry` stream. The one declaration of its fields (src/lib/view.ts).
 */
export const activityLogEntryView = defineView(
  'ActivityLogEntry',
  {
    id: v.int(),
    createdAt: v.dateTime(),
    category: v.oneOf(ACTIVITY_CATEGORIES),
    action: v.str(),
    userId: v.nullInt(),
    username: v.nullStr(),
    success: v.bool(),
    ip: v.nullStr(),
    method: v.nullStr(),
    path: v.nullStr(),
    resource: v.nullStr(),
    metadata: v.json<unknown>({ description: 'free-form JSON chosen by the action (or null)' }),
  },
  { alias: 'a' },
);
export type ActivityLogEntryView = ViewOf<typeof activityLogEntryView>;

export const activityLogViews = [activityLogEntryView];

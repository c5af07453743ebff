/** OpenAPI paths of this feature (merged by src/docs/openapi.ts). */
const adminErrors = {
  '401': { description: 'token missing or invalid' },
  '403': { description: '"Admin access required"' },
};

export const adminOpenApi: Record<string, unknown> = {
  '/admin/activity-logs': {
    get: {
      tags: ['admin'],
      summary: 'Activity log, 50 entries a page, newest first',
      parameters: [
        { name: 'page', in: 'query', schema: { type: 'integer', minimum: 1, default: 1 } },
        { name: 'category', in: 'query', schema: { enum: ['auth', 'event', 'match', 'admin', 'chat'] } },
        { name: 'action', in: 'query', schema: { type: 'string' }, description: 'exact action, e.g. login, login_failed' },
        { name: 'username', in: 'query', schema: { type: 'string' }, description: 'exact, case-insensitive' },
        { name: 'success', in: 'query', schema: { enum: ['true', 'false'] } },
        { name: 'from', in: 'query', schema: { type: 'string', format: 'date-time' }, description: 'inclusive' },
        { name: 'to', in: 'query', schema: { type: 'string', format: 'date-time' }, description: 'inclusive' },
      ],
      description:
        'Entry: `{ id, createdAt, category, action, userId, username, success, ip, method, path, resource, metadata }`. Auth actions: register, login, login_failed, login_locked (attempt on a locked account), account_locked (the attempt that locked it), email_verify, verification_resend, password_reset_request, password_reset, password_change, profile_update, email_change. Live stream: Socket.IO `join_admin_activity_logs` (admins only) then `activity_log_entry` events.',
      responses: { '200': { description: '`{ success, count, data: [entry], pagination: { page, limit: 50, total, totalPages } }`' }, '400': { description: '"Validation failed"' }, ...adminErrors },
    },
  },
  '/admin/activity-logs/actions': {
    get: {
      tags: ['admin'],
      summary: 'Distinct actions in the log (alphabetical)',
      responses: { '200': { description: '`{ success, count, data: [action] }`' }, ...adminErrors },
    },
  },
  '/admin/activity-logs/stats': {
    get: {
      tags: ['admin'],
      summary: 'Activity log statistics',
      responses: {
        '200': { description: '`{ success, data: { total, last24h, failures, byCategory: { auth, event, match, admin, chat }, topActions: [{ action, count }] (10 most frequent) } }`' },
        ...adminErrors,
      },
    },
  },
};

import { dataOf, int, json, listOf, obj, operation, ref, str } from '../../docs/openapi-helpers.js';
import { activityLogInput } from './activity-log.schemas.js';
import { ACTIVITY_CATEGORIES } from './activity-log.views.js';

/** OpenAPI paths of this feature (merged by src/docs/openapi.ts); the list's query parameters come from its declaration. */

export const adminOpenApi: Record<string, unknown> = {
  '/admin/activity-logs': {
    get: operation('get', {
      tags: ['admin'],
      summary: 'Activity log, 50 entries a page, newest first',
      access: 'admin',
      parameters: activityLogInput.openapi.parameters,
      description:
        'Each parameter may be given once (a repeated one is a 400). Auth actions: register, login, login_failed, login_locked (attempt on a locked account), account_locked (the attempt that locked it), email_verify, verification_resend, password_reset_request, password_reset, password_change, profile_update, email_change. Live stream: Socket.IO `join_admin_activity_logs` (admins only) then `activity_log_entry` events.',
      ok: { '200': json(listOf(ref('ActivityLogEntry'), { pagination: ref('Pagination') })) },
      errors: { 400: ['VALIDATION_ERROR'] },
    }),
  },
  '/admin/activity-logs/actions': {
    get: operation('get', {
      tags: ['admin'],
      summary: 'Distinct actions in the log (alphabetical)',
      access: 'admin',
      ok: { '200': json(listOf(str)) },
    }),
  },
  '/admin/activity-logs/stats': {
    get: operation('get', {
      tags: ['admin'],
      summary: 'Activity log statistics',
      description: '`topActions`: the 10 most frequent actions.',
      access: 'admin',
      ok: {
        '200': json(
          dataOf(
            obj({
              total: int,
              last24h: int,
              failures: int,
              byCategory: obj(Object.fromEntries(ACTIVITY_CATEGORIES.map((c) => [c, int]))),
              topActions: { type: 'array', maxItems: 10, items: obj({ action: str, count: int }) },
            }),
          ),
        ),
      },
    }),
  },
};

import { dataOf, int, json, listOf, obj, operation, queryParam, ref, str } from '../../docs/openapi-helpers.js';

/** OpenAPI paths of this feature (merged by src/docs/openapi.ts). */
const categories = ['auth', 'event', 'match', 'admin', 'chat'];

export const adminOpenApi: Record<string, unknown> = {
  '/admin/activity-logs': {
    get: operation('get', {
      tags: ['admin'],
      summary: 'Activity log, 50 entries a page, newest first',
      access: 'admin',
      parameters: [
        queryParam('page', { type: 'integer', minimum: 1, maximum: 100000, default: 1 }),
        queryParam('category', { enum: categories }),
        queryParam(
          'action',
          { type: 'string', minLength: 1, maxLength: 100 },
          'exact action, e.g. login, login_failed',
        ),
        queryParam(
          'username',
          { type: 'string', minLength: 1, maxLength: 50 },
          'exact, case-insensitive, literal (`%` and `_` are characters, not wildcards)',
        ),
        queryParam('success', { enum: ['true', 'false'] }),
        queryParam(
          'from',
          { type: 'string', format: 'date-time' },
          'inclusive; ISO 8601, 1900-01-01 to 9999-12-31 UTC (else 400)',
        ),
        queryParam(
          'to',
          { type: 'string', format: 'date-time' },
          'inclusive; ISO 8601, 1900-01-01 to 9999-12-31 UTC (else 400)',
        ),
      ],
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
              byCategory: obj(Object.fromEntries(categories.map((c) => [c, int]))),
              topActions: { type: 'array', maxItems: 10, items: obj({ action: str, count: int }) },
            }),
          ),
        ),
      },
    }),
  },
};

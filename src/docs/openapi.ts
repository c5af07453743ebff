import { adminOpenApi } from '../modules/activity-log/activity-log.openapi.js';
import { authOpenApi } from '../modules/auth/auth.openapi.js';
import { chatOpenApi } from '../modules/chat/chat.openapi.js';
import { dashboardOpenApi } from '../modules/dashboard/dashboard.openapi.js';
import { eventsOpenApi } from '../modules/events/events.openapi.js';
import { eventSettingsOpenApi } from '../modules/event-settings/event-settings.openapi.js';
import { healthOpenApi } from '../modules/health/health.openapi.js';
import { heatsOpenApi } from '../modules/heats/heats.openapi.js';
import { matchesOpenApi } from '../modules/matches/matches.openapi.js';
import { matchingOpenApi } from '../modules/matching/matching.openapi.js';
import { registryOpenApi } from '../modules/registry/registry.openapi.js';
import { usersOpenApi } from '../modules/users/users.openapi.js';

/**
 * The API reference: SPEC.md + DECISIONS.md + the choices made where both are silent.
 * Each feature keeps its paths in `<feature>.openapi.ts`; this merges them into one document.
 */
export function buildOpenApiDocument() {
  const parts = [
    healthOpenApi,
    authOpenApi,
    usersOpenApi,
    registryOpenApi,
    eventsOpenApi,
    chatOpenApi,
    heatsOpenApi,
    eventSettingsOpenApi,
    matchesOpenApi,
    matchingOpenApi,
    adminOpenApi,
    dashboardOpenApi,
  ];
  const paths: Record<string, Record<string, unknown>> = {};
  for (const part of parts) {
    for (const [path, ops] of Object.entries(part)) paths[path] = { ...(paths[path] ?? {}), ...(ops as object) };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'WCS partner service API',
      version: '0.1.0',
      description: [
        'All paths are relative to `/api`. Success: `{ success: true, data }` (lists add `count`, paged lists',
        '`pagination: { page, limit, total, totalPages }`). Error: `{ success: false, error, code, details? }`.',
        'Authenticated routes need `Authorization: Bearer <JWT>` (HS256, 24 h).',
        'Real-time channel: Socket.IO on the same port, path `/socket.io`, token in `auth.token`; see the README.',
      ].join(' '),
    },
    servers: [{ url: '/api' }],
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
      schemas: {
        Error: {
          type: 'object',
          required: ['success', 'error', 'code'],
          properties: {
            success: { const: false },
            error: { type: 'string' },
            code: { type: 'string', examples: ['VALIDATION_ERROR', 'NOT_FOUND'] },
            details: {
              type: 'array',
              items: { type: 'object', properties: { field: { type: 'string' }, message: { type: 'string' } } },
            },
          },
        },
      },
    },
    security: [{ bearer: [] }],
    paths,
  };
}

import { adminOpenApi } from '../modules/activity-log/activity-log.openapi.js';
import { metricsOpenApi } from '../lib/metrics.openapi.js';
import { authOpenApi } from '../modules/auth/auth.openapi.js';
import { chatOpenApi } from '../modules/chat/chat.openapi.js';
import { dashboardOpenApi } from '../modules/dashboard/dashboard.openapi.js';
import { eventsOpenApi } from '../modules/events/events.openapi.js';
import { eventSettingsOpenApi } from '../modules/event-settings/event-settings.openapi.js';
import { healthOpenApi } from '../modules/health/health.openapi.js';
import { heatsOpenApi } from '../modules/heats/heats.openapi.js';
import { matchesOpenApi } from '../modules/matches/matches.openapi.js';
import { matchingOpenApi } from '../modules/matching/matching.openapi.js';
import { matchingPeopleOpenApi } from '../modules/matching/matching-people.openapi.js';
import { registryOpenApi } from '../modules/registry/registry.openapi.js';
import { usersOpenApi } from '../modules/users/users.openapi.js';
import { featureSchemas } from './feature-schemas.js';
import { webrtcOpenApi } from '../modules/webrtc/webrtc.openapi.js';
import { avatarsOpenApi } from '../modules/avatars/avatars.openapi.js';
import { privacyOpenApi } from '../modules/privacy/privacy.openapi.js';
import { docsOpenApi } from './docs.openapi.js';
import { moderationOpenApi } from '../modules/moderation/moderation.openapi.js';
import { componentSchemas, errorResponse } from './openapi-helpers.js';
import { applyOperationMeta } from './operation-meta.js';
import { socketEvents, socketSchemas } from './socket.openapi.js';

/**
 * The API reference. Each feature keeps its paths in `<feature>.openapi.ts` (built with
 * ./openapi-helpers.ts); this merges them into one OpenAPI 3.1 document. The real-time
 * channel is described in the `x-socket-io` section (the list the test suite validates socket
 * payloads with) and, from the same declarations, by the AsyncAPI document (./asyncapi.ts).
 */
export function buildOpenApiDocument() {
  const parts = [
    healthOpenApi,
    docsOpenApi,
    authOpenApi,
    usersOpenApi,
    registryOpenApi,
    eventsOpenApi,
    chatOpenApi,
    heatsOpenApi,
    eventSettingsOpenApi,
    matchesOpenApi,
    matchingOpenApi,
    matchingPeopleOpenApi,
    adminOpenApi,
    dashboardOpenApi,
    webrtcOpenApi,
    metricsOpenApi,
    avatarsOpenApi,
    privacyOpenApi,
    moderationOpenApi,
  ];
  const paths: Record<string, Record<string, unknown>> = {};
  for (const part of parts) {
    for (const [path, ops] of Object.entries(part)) paths[path] = { ...(paths[path] ?? {}), ...(ops as object) };
  }
  // operationIds and request-body examples (./operation-meta.ts)
  applyOperationMeta(paths);
  return {
    openapi: '3.1.0',
    info: {
      title: 'WCS partner service API',
      version: '0.1.0',
      description: [
        'All paths are relative to `/api`. Success: `{ success: true, data }` (lists add `count`, paged lists',
        '`pagination: { page, limit, total, totalPages }`). Error: `{ success: false, error, code, details? }` with',
        '`code` from the error catalogue (schema `ErrorCode`). Authenticated routes need `Authorization: Bearer <JWT>`',
        '(HS256, 24 h). An unknown path under /api answers 404 "Not found" (code NOT_FOUND).',
        'When CSRF is on, every POST, PUT, PATCH and DELETE needs `X-CSRF-Token` (see GET /csrf-token).',
        'Bodies are JSON objects of at most 100 kB (413 beyond). Rate limits answer 429 with `RateLimit-*` headers.',
        'A hot read of 8 KiB or more (an event\'s details, say) is sent with `Content-Encoding: gzip` to a caller whose',
        '`Accept-Encoding` allows gzip, once its compressed copy is ready, and always with `Vary: Accept-Encoding`;',
        'its ETag is the same in both encodings.',
        'Real-time channel: Socket.IO on the same port, path `/socket.io`, token in `auth.token`; its events and',
        'payload schemas are described by the [AsyncAPI 3 document](/api/docs/asyncapi.json) (GET /docs/asyncapi.json),',
        'generated from the same declarations as the `x-socket-io` section of this document.',
      ].join(' '),
    },
    servers: [{ url: '/api' }],
    tags: [
      { name: 'health' },
      { name: 'docs' },
      { name: 'auth' },
      { name: 'users' },
      { name: 'registry' },
      { name: 'events' },
      { name: 'chat' },
      { name: 'heats' },
      { name: 'event settings' },
      { name: 'matches' },
      { name: 'matching' },
      { name: 'admin' },
      { name: 'dashboard' },
      { name: 'video hand-off' },
      { name: 'operations' },
      { name: 'avatars' },
      { name: 'privacy' },
      { name: 'moderation' },
    ],
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        metricsToken: { type: 'http', scheme: 'bearer', description: 'METRICS_TOKEN (GET /metrics only)' },
      },
      schemas: { ...componentSchemas, ...featureSchemas, ...socketSchemas },
      responses: {
        UnknownPath: errorResponse(['NOT_FOUND']),
      },
    },
    security: [{ bearer: [] }],
    paths,
    'x-socket-io': socketEvents,
  };
}

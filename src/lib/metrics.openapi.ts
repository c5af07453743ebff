import { errorResponse } from '../docs/openapi-helpers.js';

/**
 * OpenAPI path of GET /api/metrics (src/lib/metrics.ts; merged by src/docs/openapi.ts). Mounted
 * before the API rate limit and CSRF check, so it answers only these statuses (400 from the input
 * guard that runs before every route).
 */
export const metricsOpenApi: Record<string, unknown> = {
  '/metrics': {
    get: {
      tags: ['operations'],
      summary: 'Prometheus metrics of this instance (text exposition format 0.0.4)',
      security: [{ metricsToken: [] }],
      description:
        'Exists only when `METRICS_TOKEN` is set (at least 32 characters); the request must carry `Authorization: Bearer <METRICS_TOKEN>` ' +
        '(not a user JWT). Not under the per-IP API rate limit; with RATE_LIMIT_ENABLED, failed scrapes (401) count per IP with the auth ' +
        "tier's numbers (RATE_LIMIT_AUTH_MAX per RATE_LIMIT_AUTH_WINDOW_SECONDS): past them every scrape from that IP answers 429 until the window frees; successful scrapes never count. " +
        'Every application series starts with `wcs_`: ' +
        '`wcs_build_info{version,commit,node}` (always 1), `wcs_http_request_duration_seconds{method,route,status}` ' +
        '(route is the template, e.g. `/api/events/:slug`, or `unmatched`), `wcs_socketio_connected_sockets`, `wcs_socketio_joins_total{event}`, ' +
        '`wcs_socketio_messages_total{event}`, `wcs_chat_messages_stored_total{kind}`, `wcs_matching_run_duration_seconds{outcome}`, ' +
        '`wcs_matching_heats_covered_total`, `wcs_matching_heats_unfilled_total`, `wcs_mails_sent_total{kind}`, `wcs_mails_failed_total{kind}`, ' +
        '`wcs_mail_queue_mails{state="queued|failed"}`, `wcs_login_failures_total`, `wcs_account_lockouts_total`, ' +
        '`wcs_db_pool_connections{state="in_use|idle"}`, `wcs_db_pool_waiting_requests`, `wcs_db_queries_total`; ' +
        "and prom-client's process defaults under their standard names (`process_*`, `nodejs_*`, including `nodejs_eventloop_lag_seconds`).",
      responses: {
        '200': {
          description: '`text/plain; version=0.0.4` Prometheus text',
          content: { 'text/plain': { schema: { type: 'string' } } },
        },
        '400': {
          ...errorResponse(['VALIDATION_ERROR'], 400),
          description:
            '"Validation failed": a control character in the path or query (refused before any route, like every path under /api)',
        },
        '401': {
          ...errorResponse(['METRICS_TOKEN_REQUIRED'], 401),
          description:
            '"A valid metrics token is required" (METRICS_TOKEN_REQUIRED), with `WWW-Authenticate: Bearer realm="metrics"`: the header is missing or the token differs',
        },
        '404': {
          ...errorResponse(['NOT_FOUND'], 404),
          description: '"Not found": METRICS_TOKEN is not set, so the route does not exist',
        },
        '429': {
          ...errorResponse(['RATE_LIMITED'], 429),
          description:
            '"Too many failed metrics scrapes, please try again later" (RATE_LIMITED) with `Retry-After`: too many 401s from this IP in the window',
        },
      },
    },
  },
};

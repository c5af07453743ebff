import { dataOf, json, obj, operation } from '../../docs/openapi-helpers.js';

/** OpenAPI paths of this feature (merged by src/docs/openapi.ts). */
const databaseKind = {
  enum: ['postgres', 'embedded'],
  description: 'embedded: the bundled database used when DATABASE_URL is unset',
};

/** The checks of /health/ready; `ok` pins each to its passing value. */
const readyChecks = (ok?: { database: string; migrations: string; shutdown: string }) =>
  obj({
    database: ok ? { const: ok.database } : { enum: ['up', 'down', 'not checked'] },
    migrations: ok ? { const: ok.migrations } : { enum: ['applied', 'pending', 'unknown'] },
    shutdown: ok ? { const: ok.shutdown } : { enum: ['no', 'in progress'] },
  });

export const healthOpenApi: Record<string, unknown> = {
  '/health': {
    get: operation('get', {
      tags: ['health'],
      summary: 'Liveness and database reachability',
      description:
        '`database: "up"` when a statement sent to the database after the request arrived came back: the round trip the cached reads of the moment share, or, when its connection is down, one through the connection pool. Logged at debug only.',
      access: 'public',
      ok: {
        '200': json(dataOf(obj({ status: { const: 'ok' }, database: { const: 'up' }, databaseKind }))),
      },
      extra: {
        '503': json(
          obj({
            success: { const: false },
            error: { const: 'Service temporarily unavailable' },
            code: { const: 'SERVICE_UNAVAILABLE' },
            data: obj({ status: { const: 'degraded' }, database: { const: 'down' }, databaseKind }),
          }),
          'The database does not answer: the error envelope plus `data.database = "down"`',
        ),
      },
    }),
  },
  '/health/live': {
    get: operation('get', {
      tags: ['health'],
      summary: 'Liveness: the process answers (no database call)',
      description:
        "For an orchestrator's liveness probe: a database outage never fails it, so healthy processes are not restarted. Logged at debug only.",
      access: 'public',
      ok: { '200': json(dataOf(obj({ status: { const: 'ok' } }))) },
    }),
  },
  '/health/ready': {
    get: operation('get', {
      tags: ['health'],
      summary: 'Readiness: the instance can serve (database reachable, migrations applied, not shutting down)',
      description:
        "For a load balancer's or orchestrator's readiness probe. 503 while the database does not answer, while a migration of this build is not applied, and from the start of the shutdown. Logged at debug only when it answers 200.",
      access: 'public',
      ok: {
        '200': json(
          dataOf(
            obj({
              status: { const: 'ready' },
              checks: readyChecks({ database: 'up', migrations: 'applied', shutdown: 'no' }),
            }),
          ),
        ),
      },
      extra: {
        '503': json(
          obj({
            success: { const: false },
            error: { const: 'Service temporarily unavailable' },
            code: { const: 'SERVICE_UNAVAILABLE' },
            data: obj({ status: { const: 'not ready' }, checks: readyChecks() }),
          }),
          'Not ready: `data.checks` names what failed (database down, migrations pending, shutdown in progress)',
        ),
      },
    }),
  },
};

import { dataOf, json, obj, operation } from '../../docs/openapi-helpers.js';

/** OpenAPI paths of this feature (merged by src/docs/openapi.ts). */
const databaseKind = { enum: ['postgres', 'embedded'], description: 'embedded: the bundled database used when DATABASE_URL is unset' };

export const healthOpenApi: Record<string, unknown> = {
  '/health': {
    get: operation('get', {
      tags: ['health'],
      summary: 'Liveness and database reachability',
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
};

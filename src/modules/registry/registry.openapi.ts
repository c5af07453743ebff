import { array, dataOf, json, obj, operation, str } from '../../docs/openapi-helpers.js';

import { lookupInput } from './registry.schemas.js';

/** OpenAPI paths of this feature (merged by src/docs/openapi.ts). */
const role = { enum: ['Leader', 'Follower'] };

export const registryOpenApi: Record<string, unknown> = {
  '/registry/lookup': {
    get: operation('get', {
      tags: ['registry'],
      summary: 'Look a dancer up in the external registry (prefills registration)',
      access: 'public',
      parameters: lookupInput.openapi.parameters,
      description:
        "No token needed; rate limited with the e-mail tier. Upstream: form-encoded POST `num=<id>` to REGISTRY_LOOKUP_URL under one REGISTRY_TIMEOUT_MS (5 s) deadline covering connection, headers and the whole body (a slower answer is a 504); a redirect is never followed (502); a body over 2 MB after decompression is cut off (502). One division entry per division with points per role (leader placements first); the registry's `ALS` is reported as `ALL`. Results are cached in memory (found: 1 h, not found: 10 min, at most 1000 ids); failures are not cached. A missing dancer (upstream 404 page, or JSON without a dancer) answers 404.",
      ok: {
        '200': json(
          dataOf(
            obj({
              registryId: str,
              firstName: str,
              lastName: str,
              primaryRole: { enum: ['Leader', 'Follower', null] },
              divisions: array(obj({ abbreviation: str, points: { type: 'number' }, role })),
            }),
          ),
        ),
      },
      errors: {
        400: ['VALIDATION_ERROR'],
        404: ['REGISTRY_DANCER_NOT_FOUND'],
        502: ['REGISTRY_UNAVAILABLE'],
        504: ['REGISTRY_TIMEOUT'],
      },
    }),
  },
};

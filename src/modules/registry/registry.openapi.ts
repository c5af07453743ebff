/** OpenAPI paths of this feature (merged by src/docs/openapi.ts). */
export const registryOpenApi: Record<string, unknown> = {
  '/registry/lookup': {
    get: {
      tags: ['registry'],
      summary: 'Look a dancer up in the external registry (prefills registration)',
      security: [],
      parameters: [{ name: 'id', in: 'query', required: true, schema: { type: 'string', pattern: '^\\d{1,10}$' } }],
      description:
        'No token needed; rate limited with the e-mail tier. Upstream: form-encoded POST `num=<id>` to REGISTRY_LOOKUP_URL with a REGISTRY_TIMEOUT_MS (5 s) timeout. Answer `data: { registryId, firstName, lastName, primaryRole ("Leader" | "Follower" | null), divisions: [{ abbreviation, points, role }] }` — one entry per division with points per role (leader placements first); the registry\'s `ALS` is reported as `ALL`. Results are cached in memory (found: 1 h, not found: 10 min, at most 1000 ids); failures are not cached.',
      responses: {
        '200': { description: 'dancer data' },
        '400': { description: '"Validation failed" (id not 1-10 digits)' },
        '404': { description: '"Dancer not found in registry" (upstream 404 page, or JSON without a dancer)' },
        '429': { description: 'rate limited' },
        '502': { description: '"Registry is unavailable, please try again later" (REGISTRY_UNAVAILABLE): unreachable, error status or unparseable answer' },
        '504': { description: '"Registry did not answer in time, please try again later" (REGISTRY_TIMEOUT)' },
      },
    },
  },
};

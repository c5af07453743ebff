/** OpenAPI paths of this feature (merged by src/docs/openapi.ts). */
export const matchesOpenApi: Record<string, unknown> = {};

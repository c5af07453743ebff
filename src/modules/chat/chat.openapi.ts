/** OpenAPI paths of this feature (merged by src/docs/openapi.ts). */
export const chatOpenApi: Record<string, unknown> = {};

/** OpenAPI paths of this feature (merged by src/docs/openapi.ts). */
export const adminOpenApi: Record<string, unknown> = {};

/** OpenAPI paths of this feature (merged by src/docs/openapi.ts). */
export const eventsOpenApi: Record<string, unknown> = {};

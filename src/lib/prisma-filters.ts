/**
 * Prisma filter adapters for PostgreSQL. Prisma turns `{ equals, mode: 'insensitive' }` into
 * `ILIKE`, where `%` and `_` are wildcards and `\` escapes: `username=%` would match every
 * row and a trailing `\` is a database error.
 */

/** Case-insensitive equality that matches the value literally (wildcards and `\` escaped). */
export function equalsIgnoringCase(value: string): { equals: string; mode: 'insensitive' } {
  return { equals: value.replace(/[\\%_]/g, '\\$&'), mode: 'insensitive' };
}

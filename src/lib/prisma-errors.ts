import { Prisma } from '../generated/prisma/client.js';

/**
 * Helpers to recognise database errors raised through Prisma's driver adapters.
 * @prisma/adapter-pg reports the violated constraint in
 * `meta.driverAdapterError.cause.constraint`, other adapters in `meta.target`.
 */

type AnyRecord = Record<string, unknown>;

function knownError(err: unknown): Prisma.PrismaClientKnownRequestError | undefined {
  return err instanceof Prisma.PrismaClientKnownRequestError ? err : undefined;
}

/** Columns or index name of a unique violation (P2002), as far as the adapter tells. */
export function uniqueViolationTarget(err: unknown): string[] | undefined {
  const e = knownError(err);
  if (!e || e.code !== 'P2002') return undefined;
  const meta = (e.meta ?? {}) as AnyRecord;
  const target = meta.target;
  if (Array.isArray(target)) return target.map(String);
  if (typeof target === 'string') return [target];
  const cause = ((meta.driverAdapterError as AnyRecord | undefined)?.cause ?? {}) as AnyRecord;
  const constraint = (cause.constraint ?? {}) as AnyRecord;
  if (Array.isArray(constraint.fields)) return constraint.fields.map(String);
  if (typeof constraint.index === 'string') return [constraint.index];
  return [];
}

export function isUniqueViolation(err: unknown, ...anyOf: string[]): boolean {
  const target = uniqueViolationTarget(err);
  if (!target) return false;
  if (anyOf.length === 0) return true;
  const joined = target.join(',');
  return anyOf.some((name) => target.includes(name) || joined.includes(name));
}

/** P2025: the record an update/delete needed was not found. */
export function isRecordNotFound(err: unknown): boolean {
  return knownError(err)?.code === 'P2025';
}

/** P2003: a foreign key points nowhere. */
export function isForeignKeyViolation(err: unknown): boolean {
  return knownError(err)?.code === 'P2003';
}

const UNREACHABLE_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024']);
// SQLSTATEs: 57P01-57P03 the server terminated the session or is starting/stopping, 53300 too many
// connections, class 08 connection exceptions (issue 23: a fail-over or a proxy dropping connections)
const NET_ERRNOS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'EPIPE',
  '57P01',
  '57P02',
  '57P03',
  '53300',
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
]);

/**
 * Messages of "no connection to be had": the server is down or restarting, pg's pool waited
 * `connectionTimeoutMillis` for a free connection ("timeout exceeded when trying to connect":
 * pool exhaustion, issue 16) or its wait queue was full (src/lib/database-pool.ts), an interactive
 * transaction found no connection within its `maxWait` (P2028 "Unable to start a transaction in
 * the given time"), the pool was ended during shutdown, or the server cut the session or refuses
 * new ones (a restart, a fail-over, `ALLOW_CONNECTIONS false`: issue 23).
 */
const UNAVAILABLE_MESSAGE =
  /Connection terminated|connect ECONNREFUSED|Can't reach database|Timed out fetching a new connection|timeout exceeded when trying to connect|database pool queue is full|Unable to start a transaction in the given time|Cannot use a pool after calling end on the pool|is not currently accepting connections|terminating connection due to administrator command|the database system is (starting up|shutting down|in recovery mode)/i;

/** True when the database cannot be reached (connection refused, pool timeout, shutdown). */
export function isDatabaseUnavailable(err: unknown): boolean {
  let current: unknown = err;
  for (let depth = 0; current && depth < 6; depth++) {
    const c = current as AnyRecord;
    if (typeof c.code === 'string' && (UNREACHABLE_CODES.has(c.code) || NET_ERRNOS.has(c.code))) return true;
    if (c instanceof Prisma.PrismaClientInitializationError) return true;
    const kind = (c.cause as AnyRecord | undefined)?.kind;
    if (kind === 'DatabaseNotReachable' || kind === 'DatabaseDoesNotExist' || kind === 'ConnectionClosed') return true;
    if (typeof c.message === 'string' && UNAVAILABLE_MESSAGE.test(c.message)) {
      return true;
    }
    current = c.cause ?? (c.meta as AnyRecord | undefined)?.driverAdapterError;
  }
  return false;
}

/**
 * SQLSTATEs of PostgreSQL's "data exception" class that only input can cause: U+0000 or a bad
 * byte in text (22021), a number (22003) or date (22008, 22007) out of the column's range, text
 * that is not of the column's type (22P02), a value too long (22001). Validation refuses these
 * first; this is the net under it, so that such input never becomes a 500.
 */
const INVALID_INPUT_SQLSTATES = new Set(['22021', '22003', '22008', '22007', '22P02', '22001']);

/** The SQLSTATE of an input-caused data exception (see above), from Prisma or a plain pg error; else undefined. */
export function invalidInputSqlState(err: unknown): string | undefined {
  const plain = (err as { code?: unknown; severity?: unknown } | null)?.code;
  // pg's DatabaseError of the plain SQL reads (src/lib/sql.ts): `code` is the SQLSTATE
  if (
    typeof plain === 'string' &&
    INVALID_INPUT_SQLSTATES.has(plain) &&
    typeof (err as { severity?: unknown }).severity === 'string'
  )
    return plain;
  const e = knownError(err);
  if (!e) return undefined;
  const meta = (e.meta ?? {}) as AnyRecord;
  const cause = (meta.driverAdapterError as AnyRecord | undefined)?.cause as AnyRecord | undefined;
  const sqlState = cause?.originalCode ?? cause?.code ?? meta.code;
  return typeof sqlState === 'string' && INVALID_INPUT_SQLSTATES.has(sqlState) ? sqlState : undefined;
}

/** True for a database error caused by a value the column cannot hold (see above) or Prisma's P2020. */
export function isInvalidInputValue(err: unknown): boolean {
  if (invalidInputSqlState(err)) return true;
  const e = knownError(err);
  if (!e) return false;
  if (e.code === 'P2020') return true;
  const cause = ((e.meta as AnyRecord | undefined)?.driverAdapterError as AnyRecord | undefined)?.cause as
    AnyRecord | undefined;
  const sqlState = cause?.originalCode ?? cause?.code;
  return typeof sqlState === 'string' && INVALID_INPUT_SQLSTATES.has(sqlState);
}

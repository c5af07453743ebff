/**
 * Errors that end the start of src/server.ts with one line (no imports: server.ts loads this
 * before the configuration is known, like ConfigError).
 */

/** The start gave up on an unreachable database; the message is the one line to print. */
export class DatabaseUnreachableError extends Error {
  override name = 'DatabaseUnreachableError';
}

/** A signal arrived before the server was listening. */
export class StartupAborted extends Error {
  override name = 'StartupAborted';
}

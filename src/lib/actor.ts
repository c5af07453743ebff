import type { AuthUser } from './auth.js';
import { AppError } from './errors.js';

/**
 * Who asks a service to act, and from where: built once per HTTP request
 * (middleware/actor.ts), per socket event (realtime/io.ts) or for system callers (scheduler,
 * CLI). Services use it for authorization and for the activity log, never Express's `req`.
 */
export interface Actor {
  /** the authenticated user of the request or socket; null for the scheduler, the CLI and anonymous requests */
  user: AuthUser | null;
  userId: number | null;
  username: string | null;
  ip: string | null;
  method: string | null;
  path: string | null;
}

/** The scheduler, the CLI and other callers without a user. */
export function systemActor(source: string): Actor {
  return { user: null, userId: null, username: null, ip: null, method: source, path: null };
}

/**
 * The user of an actor on a route or socket event that requires authentication (requireAuth
 * and the socket handshake guarantee one); 401 AUTH_REQUIRED otherwise, never a crash.
 */
export function userOf(actor: Actor): AuthUser {
  if (!actor.user) throw new AppError('AUTH_REQUIRED');
  return actor.user;
}

import type { AuthUser } from './auth.js';
import { AppError } from './errors.js';

/**
 * Who asks a service to act, and from where: built once per HTTP request
 * (middleware/actor.ts), per socket event (realtime/io.ts) or for system callers (scheduler,
 * CLI). Services use it for authorization and for the activity log, never Express's `req`.
 * `user` is the authenticated user as the token check loaded it (null for system callers and
 * anonymous requests); a service that needs more of the caller reads it through the actor, so
 * the caller is passed once.
 */
export interface Actor {
  userId: number | null;
  username: string | null;
  ip: string | null;
  method: string | null;
  path: string | null;
  user?: AuthUser | null;
}

/** The scheduler, the CLI and other callers without a user. */
export function systemActor(source: string): Actor {
  return { userId: null, username: null, ip: null, method: source, path: null, user: null };
}

/** The actor's user; 401 AUTH_REQUIRED for a caller without one (a system actor on a user's route). */
export function userOf(actor: Actor): AuthUser {
  if (!actor.user) throw new AppError('AUTH_REQUIRED');
  return actor.user;
}

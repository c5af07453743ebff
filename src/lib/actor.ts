import { AppError } from './errors.js';

/**
 * Who asks a service to act, and from where: built once per HTTP request
 * (middleware/actor.ts), per socket event (realtime/io.ts) or for system callers (scheduler,
 * CLI). Services use it for authorization and for the activity log, never Express's `req`.
 */
export interface Actor {
  userId: number | null;
  username: string | null;
  ip: string | null;
  method: string | null;
  path: string | null;
}

/** The scheduler, the CLI and other callers without a user. */
export function systemActor(source: string): Actor {
  return { userId: null, username: null, ip: null, method: source, path: null };
}

/**
 * The signed-in user of an actor (routes behind `requireAuth`, sockets after the handshake):
 * 401 AUTH_REQUIRED for an actor without a user, so a service never acts for nobody by mistake.
 */
export function signedInUser(actor: Actor): { id: number; username: string } {
  if (actor.userId === null) throw new AppError('AUTH_REQUIRED');
  return { id: actor.userId, username: actor.username ?? '' };
}

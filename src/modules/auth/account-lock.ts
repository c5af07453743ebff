import type { Actor } from '../../lib/actor.js';
import { AppError } from '../../lib/errors.js';

/**
 * What the login (login.service.ts) and the current-password check (current-password.ts) share:
 * the 423 of a locked account, the suspension test, and the actor of an anonymous request.
 */

/** Whether a user row is suspended at `now`: suspendedAt set and no end, or an end still ahead. */
export function isSuspended(user: { suspendedAt: Date | null; suspendedUntil: Date | null }, now: Date): boolean {
  return user.suspendedAt !== null && (user.suspendedUntil === null || user.suspendedUntil.getTime() > now.getTime());
}

/** 423 ACCOUNT_LOCKED with retryAfter and Retry-After (the login and the current password). */
export function lockedError(remainingMs: number): AppError {
  // whole milliseconds: lockedUntil is stored with millisecond precision, now() has microseconds
  remainingMs = Math.floor(remainingMs);
  const retryAfter = Math.max(1, Math.ceil(remainingMs / 1000));
  const minutes = Math.max(1, Math.ceil(remainingMs / 60_000));
  return new AppError('ACCOUNT_LOCKED', {
    message: `Account is locked. Try again in ${minutes} minute(s).`,
    extra: { retryAfter },
    headers: { 'Retry-After': String(retryAfter) },
  });
}

/** The actor of an anonymous request, named after the account it concerns (null when none). */
export const actingAs = (actor: Actor, user: { id: number; username: string } | null | undefined): Actor => ({
  ...actor,
  userId: user?.id ?? null,
  username: user?.username ?? null,
});

import type { Actor } from '../../src/lib/actor';
import type { AuthUser } from '../../src/lib/auth';

/**
 * The actor of a request by `user` (as actorOf(req) builds it after requireAuth), for tests
 * that call services directly. Takes a factory's User row or any part of it.
 */
export function actorFor(user: Pick<AuthUser, 'id' | 'username'> & Partial<AuthUser>): Actor {
  const authUser: AuthUser = {
    email: `${user.username}@example.com`,
    avatar: '',
    isAdmin: false,
    emailVerified: true,
    tokenVersion: 0,
    ...user,
  };
  return { user: authUser, userId: user.id, username: user.username, ip: '127.0.0.1', method: 'TEST', path: null };
}

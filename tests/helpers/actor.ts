import type { Actor } from '../../src/lib/actor';
import type { AuthUser } from '../../src/lib/auth';

/** The actor of a service call made by `user` directly (no request), as actorOf would build it. */
export function userActor(
  user: Pick<AuthUser, 'id' | 'username' | 'email' | 'avatar' | 'isAdmin' | 'emailVerified' | 'tokenVersion'>,
  path = 'test',
): Actor {
  const { id, username, email, avatar, isAdmin, emailVerified, tokenVersion } = user;
  return {
    userId: id,
    username,
    ip: null,
    method: 'TEST',
    path,
    user: { id, username, email, avatar, isAdmin, emailVerified, tokenVersion },
  };
}

import { Router, type RequestHandler } from 'express';
import type { AuthGuards } from '../../middleware/auth.js';
import type { CachedRead } from '../../middleware/cached-read.js';
import type { RateLimiters } from '../../middleware/rate-limit.js';
import type { UsersService } from './users.service.js';
import { sendConfirmation, sendData } from '../../lib/http.js';
import { actorOf } from '../../middleware/actor.js';
import { currentUser } from '../../middleware/auth.js';
import { input, validate } from '../../middleware/validate.js';
import {
  changePasswordBody,
  updateProfileBody,
  usernameParam,
  type ChangePasswordInput,
  type ProfileUpdate,
  type UsernameParam,
} from './users.schemas.js';

/** What the router calls (built by src/container.ts). */
export interface UsersRouterDeps {
  guards: AuthGuards;
  cachedRead: CachedRead;
  users: UsersService;
  limiters: RateLimiters;
}

/** Every table GET /users/me reads: the user and its statistics (users.service.ts, withStats). */
const ME_TABLES = ['User', 'Match', 'Rating', 'RecordingSuggestion'];

/** The signed-in user's account and other users' public profiles (a token is required for all). */
export function createUsersRouter({ guards, cachedRead, users, limiters }: UsersRouterDeps): Router {
  const router = Router();

  /**
   * An e-mail change (an address other than the account's) passes the authentication tier (it asks
   * for the current password) and the e-mail tier (it sends mail); other profile updates pass neither
   * (docs/security-hardening.md). Runs after validation, so the address is already normalized.
   */
  const emailChangeTiers: RequestHandler = async (req, res, next) => {
    const { email } = input<ProfileUpdate>(res);
    if (typeof email !== 'string' || !(await users.isEmailChange(currentUser(req).id, email))) return next();
    limiters.auth(req, res, (err?: unknown) => (err ? next(err) : limiters.email(req, res, next)));
  };

  router.get('/users/me', guards.requireAuth, cachedRead(ME_TABLES), async (req, res) => {
    sendData(res, await users.getMe(currentUser(req).id));
  });

  router.patch('/users/me', guards.requireAuth, validate(...updateProfileBody), emailChangeTiers, async (req, res) => {
    sendData(res, await users.updateProfile(actorOf(req), currentUser(req).id, input<ProfileUpdate>(res)));
  });

  router.patch(
    '/users/me/password',
    guards.requireAuth,
    limiters.auth,
    validate(...changePasswordBody),
    async (req, res) => {
      const { currentPassword, newPassword } = input<ChangePasswordInput>(res);
      const { token } = await users.changePassword(actorOf(req), currentUser(req).id, currentPassword, newPassword);
      sendConfirmation(res, 'Password changed', { token });
    },
  );

  router.get('/users/:username', guards.requireAuth, validate(...usernameParam), async (req, res) => {
    sendData(res, await users.getPublicProfile(input<UsernameParam>(res).username, currentUser(req).id));
  });

  router.get('/users/:username/ratings', guards.requireAuth, validate(...usernameParam), async (req, res) => {
    sendData(res, await users.getUserRatings(input<UsernameParam>(res).username, currentUser(req).id));
  });
  return router;
}

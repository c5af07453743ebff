import { Router, type RequestHandler } from 'express';
import type { AuthGuards } from '../../middleware/auth.js';
import type { RateLimiters } from '../../middleware/rate-limit.js';
import type { AccountService } from './account.service.js';
import type { ProfilesService } from './profiles.service.js';
import { sendConfirmation, sendData } from '../../lib/http.js';
import { actorOf } from '../../middleware/actor.js';
import { validate } from '../../middleware/validate.js';
import { changePasswordInput, updateProfileInput, usernameInput } from './users.schemas.js';

/** What the router calls (built by src/container.ts). */
export interface UsersRouterDeps {
  guards: AuthGuards;
  profiles: Pick<ProfilesService, 'getMe' | 'getPublicProfile' | 'getUserRatings'>;
  account: Pick<AccountService, 'updateProfile' | 'isEmailChange' | 'changePassword'>;
  limiters: RateLimiters;
}

/** The signed-in user's account and other users' public profiles (a token is required for all). */
export function createUsersRouter({ guards, profiles, account, limiters }: UsersRouterDeps): Router {
  const router = Router();

  /**
   * An e-mail change (an address other than the account's) passes the authentication tier (it asks
   * for the current password) and the e-mail tier (it sends mail); other profile updates pass neither
   * (docs/security-hardening.md). Runs after validation, so the address is already normalized.
   */
  const emailChangeTiers: RequestHandler = async (req, res, next) => {
    const { email } = updateProfileInput.from(res);
    if (typeof email !== 'string' || !(await account.isEmailChange(actorOf(req), { email }))) return next();
    limiters.auth(req, res, (err?: unknown) => (err ? next(err) : limiters.email(req, res, next)));
  };

  router.get('/users/me', guards.requireAuth, async (req, res) => {
    sendData(res, await profiles.getMe(actorOf(req)));
  });

  router.patch('/users/me', guards.requireAuth, validate(updateProfileInput), emailChangeTiers, async (req, res) => {
    sendData(res, await account.updateProfile(actorOf(req), updateProfileInput.from(res)));
  });

  router.patch(
    '/users/me/password',
    guards.requireAuth,
    limiters.auth,
    validate(changePasswordInput),
    async (req, res) => {
      const { token } = await account.changePassword(actorOf(req), changePasswordInput.from(res));
      sendConfirmation(res, 'Password changed', { token });
    },
  );

  router.get('/users/:username', guards.requireAuth, validate(usernameInput), async (req, res) => {
    sendData(res, await profiles.getPublicProfile(actorOf(req), usernameInput.from(res)));
  });

  router.get('/users/:username/ratings', guards.requireAuth, validate(usernameInput), async (req, res) => {
    sendData(res, await profiles.getUserRatings(actorOf(req), usernameInput.from(res)));
  });
  return router;
}

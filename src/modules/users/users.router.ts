import { Router } from 'express';
import type { Container } from '../../container.js';
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

/** The signed-in user's account and other users' public profiles (a token is required for all). */
export function createUsersRouter({ guards, users }: Pick<Container, 'guards' | 'users'>): Router {
  const router = Router();

  router.get('/users/me', guards.requireAuth, async (req, res) => {
    sendData(res, await users.getMe(currentUser(req).id));
  });

  router.patch('/users/me', guards.requireAuth, validate(...updateProfileBody), async (req, res) => {
    sendData(res, await users.updateProfile(actorOf(req), currentUser(req).id, input<ProfileUpdate>(res)));
  });

  router.patch('/users/me/password', guards.requireAuth, validate(...changePasswordBody), async (req, res) => {
    const { currentPassword, newPassword } = input<ChangePasswordInput>(res);
    const { token } = await users.changePassword(actorOf(req), currentUser(req).id, currentPassword, newPassword);
    sendConfirmation(res, 'Password changed', { token });
  });

  router.get('/users/:username', guards.requireAuth, validate(...usernameParam), async (req, res) => {
    sendData(res, await users.getPublicProfile(input<UsernameParam>(res).username, currentUser(req).id));
  });

  router.get('/users/:username/ratings', guards.requireAuth, validate(...usernameParam), async (req, res) => {
    sendData(res, await users.getUserRatings(input<UsernameParam>(res).username, currentUser(req).id));
  });
  return router;
}

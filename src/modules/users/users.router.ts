import { Router } from 'express';
import { sendData } from '../../lib/http.js';
import { currentUser, requireAuth } from '../../middleware/auth.js';
import { validate } from '../../middleware/validate.js';
import * as users from './users.service.js';
import { changePasswordRules, updateProfileRules, usernameParamRules } from './users.validators.js';

export const usersRouter = Router();

usersRouter.get('/users/me', requireAuth, async (req, res) => {
  sendData(res, await users.getMe(currentUser(req).id));
});

usersRouter.patch('/users/me', requireAuth, validate(...updateProfileRules), async (req, res) => {
  sendData(res, await users.updateProfile(req, currentUser(req).id, req.body));
});

usersRouter.patch('/users/me/password', requireAuth, validate(...changePasswordRules), async (req, res) => {
  await users.changePassword(req, currentUser(req).id, req.body.currentPassword, req.body.newPassword);
  res.status(200).json({ success: true, message: 'Password changed', data: { message: 'Password changed' } });
});

usersRouter.get('/users/:username', requireAuth, validate(...usernameParamRules), async (req, res) => {
  sendData(res, await users.getPublicProfile(String(req.params.username)));
});

usersRouter.get('/users/:username/ratings', requireAuth, validate(...usernameParamRules), async (req, res) => {
  sendData(res, await users.getUserRatings(String(req.params.username)));
});

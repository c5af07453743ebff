import { Router } from 'express';
import type { AuthService } from './auth.service.js';
import type { Csrf } from '../../middleware/csrf.js';
import type { RateLimiters } from '../../middleware/rate-limit.js';
import { sendConfirmation, sendData } from '../../lib/http.js';
import { actorOf } from '../../middleware/actor.js';
import { input, validate } from '../../middleware/validate.js';
import {
  emailBody,
  loginBody,
  registerBody,
  resetPasswordBody,
  verifyCodeBody,
  verifyEmailQuery,
  type EmailInput,
  type LoginInput,
  type RegisterInput,
  type ResetPasswordInput,
  type VerifyCodeInput,
  type VerifyEmailQuery,
} from './auth.schemas.js';
import { RESEND_MESSAGE, RESET_REQUEST_MESSAGE } from './auth.service.js';

/** What the router calls (built by src/container.ts). */
export interface AuthRouterDeps {
  auth: AuthService;
  csrf: Csrf;
  limiters: RateLimiters;
}

/**
 * Anonymous account routes: the CSRF token, register and login (authentication rate tier),
 * e-mail verification, and the mail-sending requests (e-mail rate tier).
 */
export function createAuthRouter({ auth, csrf, limiters }: AuthRouterDeps): Router {
  const router = Router();

  router.get('/csrf-token', (req, res) => {
    sendData(res, { csrfToken: csrf.issueToken(req, res) });
  });

  router.post('/auth/register', limiters.auth, validate(...registerBody), async (req, res) => {
    sendData(res, await auth.register(actorOf(req), input<RegisterInput>(res)), 201);
  });

  router.post('/auth/login', limiters.auth, validate(...loginBody), async (req, res) => {
    sendData(res, await auth.login(actorOf(req), input<LoginInput>(res)));
  });

  router.get('/auth/verify-email', validate(...verifyEmailQuery), async (req, res) => {
    await auth.verifyEmailToken(actorOf(req), input<VerifyEmailQuery>(res).token);
    sendConfirmation(res, 'Email verified', { emailVerified: true });
  });

  router.post('/auth/verify-code', validate(...verifyCodeBody), async (req, res) => {
    const { email, code } = input<VerifyCodeInput>(res);
    await auth.verifyEmailCode(actorOf(req), email, code);
    sendConfirmation(res, 'Email verified', { emailVerified: true });
  });

  router.post('/auth/resend-verification', limiters.email, validate(...emailBody), async (req, res) => {
    await auth.resendVerification(actorOf(req), input<EmailInput>(res).email);
    sendConfirmation(res, RESEND_MESSAGE);
  });

  router.post('/auth/request-password-reset', limiters.email, validate(...emailBody), async (req, res) => {
    await auth.requestPasswordReset(actorOf(req), input<EmailInput>(res).email);
    sendConfirmation(res, RESET_REQUEST_MESSAGE);
  });

  router.post('/auth/reset-password', validate(...resetPasswordBody), async (req, res) => {
    const { token, newPassword } = input<ResetPasswordInput>(res);
    await auth.resetPassword(actorOf(req), token, newPassword);
    sendConfirmation(res, 'Password has been reset');
  });
  return router;
}

import { Router } from 'express';
import type { Csrf } from '../../middleware/csrf.js';
import type { RateLimiters } from '../../middleware/rate-limit.js';
import { sendConfirmation, sendData } from '../../lib/http.js';
import { actorOf } from '../../middleware/actor.js';
import { validate } from '../../middleware/validate.js';
import {
  emailInput,
  loginInput,
  registerInput,
  resetPasswordInput,
  verifyCodeInput,
  verifyEmailInput,
} from './auth.schemas.js';
import { RESEND_MESSAGE, type EmailVerificationService } from './email-verification.service.js';
import type { LoginService } from './login.service.js';
import { RESET_REQUEST_MESSAGE, type PasswordResetService } from './password-reset.service.js';
import type { RegistrationService } from './registration.service.js';

/** What the router calls (built by src/container.ts). */
export interface AuthRouterDeps {
  registration: Pick<RegistrationService, 'register'>;
  login: Pick<LoginService, 'login'>;
  emailVerification: Pick<EmailVerificationService, 'verifyEmailToken' | 'verifyEmailCode' | 'resendVerification'>;
  passwordReset: Pick<PasswordResetService, 'requestPasswordReset' | 'resetPassword'>;
  csrf: Csrf;
  limiters: RateLimiters;
}

/**
 * Anonymous account routes: the CSRF token, register and login (authentication rate tier),
 * e-mail verification, and the mail-sending requests (e-mail rate tier).
 */
export function createAuthRouter({
  registration,
  login,
  emailVerification,
  passwordReset,
  csrf,
  limiters,
}: AuthRouterDeps): Router {
  const router = Router();

  router.get('/csrf-token', (req, res) => {
    sendData(res, { csrfToken: csrf.issueToken(req, res) });
  });

  router.post('/auth/register', limiters.auth, validate(registerInput), async (req, res) => {
    sendData(res, await registration.register(actorOf(req), registerInput.from(res)), 201);
  });

  router.post('/auth/login', limiters.auth, validate(loginInput), async (req, res) => {
    sendData(res, await login.login(actorOf(req), loginInput.from(res)));
  });

  router.get('/auth/verify-email', validate(verifyEmailInput), async (req, res) => {
    await emailVerification.verifyEmailToken(actorOf(req), verifyEmailInput.from(res));
    sendConfirmation(res, 'Email verified', { emailVerified: true });
  });

  router.post('/auth/verify-code', validate(verifyCodeInput), async (req, res) => {
    await emailVerification.verifyEmailCode(actorOf(req), verifyCodeInput.from(res));
    sendConfirmation(res, 'Email verified', { emailVerified: true });
  });

  router.post('/auth/resend-verification', limiters.email, validate(emailInput), async (req, res) => {
    await emailVerification.resendVerification(actorOf(req), emailInput.from(res));
    sendConfirmation(res, RESEND_MESSAGE);
  });

  router.post('/auth/request-password-reset', limiters.email, validate(emailInput), async (req, res) => {
    await passwordReset.requestPasswordReset(actorOf(req), emailInput.from(res));
    sendConfirmation(res, RESET_REQUEST_MESSAGE);
  });

  router.post('/auth/reset-password', validate(resetPasswordInput), async (req, res) => {
    await passwordReset.resetPassword(actorOf(req), resetPasswordInput.from(res));
    sendConfirmation(res, 'Password has been reset');
  });
  return router;
}

import { Router } from 'express';
import type { Response } from 'express';
import { sendData } from '../../lib/http.js';
import { issueCsrfToken } from '../../middleware/csrf.js';
import { authLimiter, emailLimiter } from '../../middleware/rate-limit.js';
import { validate } from '../../middleware/validate.js';
import * as auth from './auth.service.js';
import {
  emailOnlyRules,
  loginRules,
  registerRules,
  resetPasswordRules,
  verifyCodeRules,
  verifyEmailRules,
} from './auth.validators.js';

export const authRouter = Router();

/** Message answers carry the text both as `message` and in `data` (clients read either). */
function sendDone(res: Response, message: string, extra: Record<string, unknown> = {}): void {
  res.status(200).json({ success: true, message, data: { message, ...extra } });
}

authRouter.get('/csrf-token', (req, res) => {
  sendData(res, { csrfToken: issueCsrfToken(req, res) });
});

authRouter.post('/auth/register', authLimiter, validate(...registerRules), async (req, res) => {
  sendData(res, await auth.register(req, req.body), 201);
});

authRouter.post('/auth/login', authLimiter, validate(...loginRules), async (req, res) => {
  sendData(res, await auth.login(req, req.body.email, req.body.password));
});

authRouter.get('/auth/verify-email', validate(...verifyEmailRules), async (req, res) => {
  await auth.verifyEmailToken(req, String(req.query.token));
  sendDone(res, 'Email verified', { emailVerified: true });
});

authRouter.post('/auth/verify-code', validate(...verifyCodeRules), async (req, res) => {
  await auth.verifyEmailCode(req, req.body.email, req.body.code);
  sendDone(res, 'Email verified', { emailVerified: true });
});

authRouter.post('/auth/resend-verification', emailLimiter, validate(...emailOnlyRules), async (req, res) => {
  await auth.resendVerification(req, req.body.email);
  sendDone(res, auth.RESEND_MESSAGE);
});

authRouter.post('/auth/request-password-reset', emailLimiter, validate(...emailOnlyRules), async (req, res) => {
  await auth.requestPasswordReset(req, req.body.email);
  sendDone(res, auth.RESET_REQUEST_MESSAGE);
});

authRouter.post('/auth/reset-password', validate(...resetPasswordRules), async (req, res) => {
  await auth.resetPassword(req, req.body.token, req.body.newPassword);
  sendDone(res, 'Password has been reset');
});

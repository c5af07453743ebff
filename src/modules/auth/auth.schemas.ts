import { defineInput, f, type InputOf } from '../../middleware/input.js';
import { plainText } from '../../middleware/validators.js';

/**
 * The inputs of the account routes, one declaration each (src/middleware/input.ts): validation,
 * TypeScript type and OpenAPI request schema. Messages are those the SPEC and the tests quote.
 */

const email = f.email().describe('trimmed and lower-cased');
/** The address of a new account (and of an e-mail change): stricter than the one of login, resend and reset request. */
export const newEmail = f
  .email({ fresh: true })
  .describe(
    'trimmed and lower-cased; the local part unquoted, without white space or control characters (else 400 naming `email`)',
  );
const password = f.password().describe('6 characters to 72 bytes');

/** A required string that is not empty: `<label> is required` when missing or empty. */
const requiredString = (label: string, schema: Record<string, unknown> = { type: 'string' }) =>
  f.custom<string>(schema, (chain) =>
    chain
      .exists({ values: 'null' })
      .withMessage(`${label} is required`)
      .bail()
      .isString()
      .withMessage(`${label} must be a string`)
      .bail()
      .notEmpty()
      .withMessage(`${label} is required`),
  );

/** A link token (the verification link, the reset link): 1-200 characters. */
const linkToken = () =>
  f.custom<string>({ type: 'string', minLength: 1, maxLength: 200 }, (chain) =>
    chain
      .exists()
      .withMessage('Token is required')
      .bail()
      .isString()
      .withMessage('Token must be a string')
      .bail()
      .isLength({ min: 1, max: 200 })
      .withMessage('Token is required'),
  );

/** First or last name (and city, country): trimmed, at most 100 characters, no control character; null or absent clears. */
export const nameText = (label: string, description?: string) =>
  f
    .custom<string | null>(
      { type: ['string', 'null'], maxLength: 100, ...(description ? { description } : {}) },
      (_chain, name) => plainText(name, label),
    )
    .optional('null');

/** A World Swing registry id: a string of 1-10 digits ("" or null: none; a number is a wrong type: 400). */
const registryId = f
  .custom<string | null>(
    {
      type: ['string', 'null'],
      pattern: '^\\s*(\\d{1,10})?\\s*$',
      description: 'a string of 1-10 digits ("" or null: none); a number is refused (400)',
    },
    (chain) =>
      chain
        .optional({ values: 'falsy' })
        .isString()
        .withMessage('Registry id must be a string of 1-10 digits')
        .bail()
        .trim()
        .matches(/^\d{1,10}$/)
        .withMessage('Registry id must be 1-10 digits'),
  )
  .optional();

export const registerInput = defineInput('register', {
  body: {
    username: f.custom<string>(
      {
        type: 'string',
        minLength: 3,
        maxLength: 50,
        pattern: '^[A-Za-z0-9_]+$',
        description: 'unique regardless of case (`Alice` taken → `alice` gets 409); kept as written for display',
      },
      (chain) =>
        chain
          .exists({ values: 'null' })
          .withMessage('Username is required')
          .bail()
          .isString()
          .withMessage('Username must be a string')
          .bail()
          .trim()
          .isLength({ min: 3, max: 50 })
          .withMessage('Username must be 3-50 characters')
          .bail()
          .matches(/^[A-Za-z0-9_]+$/)
          .withMessage('Username may contain only letters, digits and underscores'),
    ),
    email: newEmail,
    password,
    firstName: nameText(
      'First name',
      'trimmed; a control character → 400 "firstName must not contain control characters"',
    ),
    lastName: nameText(
      'Last name',
      'trimmed; a control character → 400 "lastName must not contain control characters"',
    ),
    registryId,
    // checked by the CAPTCHA verifier when CAPTCHA_SECRET is set (missing or empty → 400 CAPTCHA_FAILED), ignored otherwise
    captchaToken: f
      .custom<string>(
        {
          type: 'string',
          maxLength: 4096,
          description:
            'CAPTCHA response token (Cloudflare Turnstile or a compatible widget). Checked only when the service runs with CAPTCHA_SECRET: after body validation and before the duplicate checks, the service POSTs `secret`, `response` and `remoteip` (form-encoded) to CAPTCHA_VERIFY_URL. Missing, empty or refused → 400 CAPTCHA_FAILED; verifier unreachable, non-2xx, not JSON or slower than 5 s → 503 CAPTCHA_UNAVAILABLE; nothing is stored and no mail is sent in both cases. Ignored while the CAPTCHA is off.',
        },
        (chain) =>
          chain
            .isString()
            .withMessage('captchaToken must be a string')
            .bail()
            .isLength({ max: 4096 })
            .withMessage('captchaToken must be at most 4096 characters'),
      )
      .optional(),
  },
});
export type RegisterInput = InputOf<typeof registerInput>;

export const loginInput = defineInput('login', {
  body: { email, password: requiredString('Password') },
});
export type LoginInput = InputOf<typeof loginInput>;

export const verifyEmailInput = defineInput('verifyEmail', {
  // `exists()` without `values: 'null'`: a query string has no null
  query: { token: linkToken() },
});
export type VerifyEmailQuery = InputOf<typeof verifyEmailInput>;

export const verifyCodeInput = defineInput('verifyCode', {
  body: {
    email,
    code: f.custom<string>(
      {
        type: ['string', 'integer'],
        pattern: '^\\s*\\d{6}\\s*$',
        description: '6 digits (a JSON integer is padded with leading zeros)',
      },
      (chain) =>
        chain
          .exists({ values: 'null' })
          .withMessage('Code is required')
          .bail()
          .customSanitizer((v: unknown) =>
            typeof v === 'number' && Number.isInteger(v) ? String(v).padStart(6, '0') : v,
          )
          .isString()
          .withMessage('Code must be 6 digits')
          .bail()
          .trim()
          .matches(/^\d{6}$/)
          .withMessage('Code must be 6 digits'),
    ),
  },
});
export type VerifyCodeInput = InputOf<typeof verifyCodeInput>;

export const emailInput = defineInput('email', { body: { email } });
export type EmailInput = InputOf<typeof emailInput>;

export const resetPasswordInput = defineInput('resetPassword', {
  body: { token: linkToken(), newPassword: password },
});
export type ResetPasswordInput = InputOf<typeof resetPasswordInput>;

/** The current password asked again (password change, account deletion). */
export const currentPasswordField = (message: string) =>
  f.custom<string>({ type: 'string' }, (chain) =>
    chain
      .exists({ values: 'null' })
      .withMessage(message)
      .bail()
      .isString()
      .withMessage('Current password must be a string')
      .bail()
      .notEmpty()
      .withMessage(message),
  );

import { body, query, type ValidationChain } from 'express-validator';
import { emailField, newEmailField, passwordField, plainText } from '../../middleware/validators.js';

/** A World Swing registry id: a string of 1-10 digits (a number is a wrong type: 400). */
export const registryIdField = (): ValidationChain =>
  body('registryId')
    .optional({ values: 'falsy' })
    .isString()
    .withMessage('Registry id must be a string of 1-10 digits')
    .bail()
    .trim()
    .matches(/^\d{1,10}$/)
    .withMessage('Registry id must be 1-10 digits');

export const registerBody: ValidationChain[] = [
  body('username')
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
  newEmailField(),
  passwordField('password'),
  plainText('firstName', 'First name'),
  plainText('lastName', 'Last name'),
  registryIdField(),
  // checked by the CAPTCHA verifier when CAPTCHA_SECRET is set (missing or empty → 400 CAPTCHA_FAILED), ignored otherwise
  body('captchaToken')
    .optional()
    .isString()
    .withMessage('captchaToken must be a string')
    .bail()
    .isLength({ max: 4096 })
    .withMessage('captchaToken must be at most 4096 characters'),
];

export interface RegisterInput {
  username: string;
  email: string;
  password: string;
  firstName?: string | null;
  lastName?: string | null;
  registryId?: string | null;
  captchaToken?: string;
}

export const loginBody: ValidationChain[] = [
  emailField(),
  body('password')
    .exists({ values: 'null' })
    .withMessage('Password is required')
    .bail()
    .isString()
    .withMessage('Password must be a string')
    .bail()
    .notEmpty()
    .withMessage('Password is required'),
];

export interface LoginInput {
  email: string;
  password: string;
}

export const verifyEmailQuery: ValidationChain[] = [
  // `exists()` without `values: 'null'`: a query string has no null
  query('token')
    .exists()
    .withMessage('Token is required')
    .bail()
    .isString()
    .withMessage('Token must be a string')
    .bail()
    .isLength({ min: 1, max: 200 })
    .withMessage('Token is required'),
];

export interface VerifyEmailQuery {
  token: string;
}

export const verifyCodeBody: ValidationChain[] = [
  emailField(),
  body('code')
    .exists({ values: 'null' })
    .withMessage('Code is required')
    .bail()
    .customSanitizer((v: unknown) => (typeof v === 'number' && Number.isInteger(v) ? String(v).padStart(6, '0') : v))
    .isString()
    .withMessage('Code must be 6 digits')
    .bail()
    .trim()
    .matches(/^\d{6}$/)
    .withMessage('Code must be 6 digits'),
];

export interface VerifyCodeInput {
  email: string;
  code: string;
}

export const emailBody: ValidationChain[] = [emailField()];

export interface EmailInput {
  email: string;
}

export const resetPasswordBody: ValidationChain[] = [
  body('token')
    .exists({ values: 'null' })
    .withMessage('Token is required')
    .bail()
    .isString()
    .withMessage('Token must be a string')
    .bail()
    .isLength({ min: 1, max: 200 })
    .withMessage('Token is required'),
  passwordField('newPassword'),
];

export interface ResetPasswordInput {
  token: string;
  newPassword: string;
}

import { body, query, type ValidationChain } from 'express-validator';
import { emailField, optionalText, passwordField } from '../../middleware/validators.js';

export const registryIdField = (): ValidationChain =>
  body('registryId')
    .optional({ values: 'falsy' })
    .customSanitizer((v: unknown) => (typeof v === 'number' ? String(v) : v))
    .isString()
    .withMessage('Registry id must be 1-10 digits')
    .bail()
    .trim()
    .matches(/^\d{1,10}$/)
    .withMessage('Registry id must be 1-10 digits');

export const registerRules: ValidationChain[] = [
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
  emailField(),
  passwordField('password'),
  optionalText('firstName', 'First name'),
  optionalText('lastName', 'Last name'),
  registryIdField(),
];

export const loginRules: ValidationChain[] = [
  emailField(),
  body('password').exists({ values: 'null' }).withMessage('Password is required').bail().isString().withMessage('Password must be a string').bail().notEmpty().withMessage('Password is required'),
];

export const verifyEmailRules: ValidationChain[] = [
  query('token').exists().withMessage('Token is required').bail().isString().withMessage('Token must be a string').bail().isLength({ min: 1, max: 200 }).withMessage('Token is required'),
];

export const verifyCodeRules: ValidationChain[] = [
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

export const emailOnlyRules: ValidationChain[] = [emailField()];

export const resetPasswordRules: ValidationChain[] = [
  body('token').exists({ values: 'null' }).withMessage('Token is required').bail().isString().withMessage('Token must be a string').bail().isLength({ min: 1, max: 200 }).withMessage('Token is required'),
  passwordField('newPassword'),
];

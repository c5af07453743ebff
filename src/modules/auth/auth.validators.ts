import { body, query, type ValidationChain } from 'express-validator';

/** E-mail: valid address, normalized by trim + lower-case only (DECISIONS.md). */
export const emailField = (field = 'email'): ValidationChain =>
  body(field)
    .exists({ values: 'null' })
    .withMessage('Email is required')
    .bail()
    .isString()
    .withMessage('Email must be a string')
    .bail()
    .trim()
    .toLowerCase()
    .isLength({ max: 254 })
    .withMessage('Email must be at most 254 characters')
    .bail()
    .isEmail()
    .withMessage('Email must be a valid email address');

/** Password policy: at least 6 characters; at most 72 bytes (bcrypt ignores what follows). */
export const passwordField = (field: string): ValidationChain =>
  body(field)
    .exists({ values: 'null' })
    .withMessage('Password is required')
    .bail()
    .isString()
    .withMessage('Password must be a string')
    .bail()
    .isLength({ min: 6 })
    .withMessage('Password must be at least 6 characters')
    .bail()
    .custom((v: string) => Buffer.byteLength(v, 'utf8') <= 72)
    .withMessage('Password must be at most 72 bytes');

/** An optional string field (null allowed), trimmed, at most `max` characters. */
export const optionalText = (field: string, label: string, max = 100): ValidationChain =>
  body(field)
    .optional({ values: 'null' })
    .isString()
    .withMessage(`${label} must be a string`)
    .bail()
    .trim()
    .isLength({ max })
    .withMessage(`${label} must be at most ${max} characters`);

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

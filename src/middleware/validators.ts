import { body, param, type ValidationChain } from 'express-validator';

/**
 * Validator atoms shared by the features' schemas: one definition of each field kind and of
 * the int32 bound of database ids.
 */

/** The largest id PostgreSQL's `integer` holds: larger ids cannot exist. */
export const INT32_MAX = 2_147_483_647;

/** A positive whole number that fits an `integer` id column. */
export const isPositiveInt32 = (value: unknown): boolean =>
  typeof value === 'number' ? Number.isInteger(value) && value >= 1 && value <= INT32_MAX : false;

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


/** A route parameter kept as given (an unknown slug or token is a 404 of the service), so it is in input<T>(res). */
export const pathParam = (name: string): ValidationChain => param(name).isString();

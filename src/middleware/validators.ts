import { body, type ValidationChain } from 'express-validator';
import { validationFailed } from '../lib/errors.js';

/**
 * Validator atoms shared by the features' schemas: one definition of each field kind and of
 * the int32 bound of database ids.
 */

/** The largest id PostgreSQL's `integer` holds: larger ids cannot exist. */
export const INT32_MAX = 2_147_483_647;

/** A positive whole number that fits an `integer` id column. */
export const isPositiveInt32 = (value: unknown): boolean =>
  typeof value === 'number' ? Number.isInteger(value) && value >= 1 && value <= INT32_MAX : false;

/** E-mail: valid address, normalized by trim + lower-case only (no provider-specific rules; see the OpenAPI document). */
export const emailField = (field = 'email', start: ValidationChain = body(field)): ValidationChain =>
  start
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

/** A quote, white space or a control character (C0, DEL, C1) in an address's local part. */
const UNSAFE_LOCAL_PART = /["\s\u0000-\u001f\u007f-\u009f]/;

/**
 * The address of a new account or an e-mail change: as emailField, and the local part (before the
 * last @) unquoted and without white space or control characters, so an address can never write
 * lines into a mail that quotes it (the notice of an e-mail change). Login, resend and reset
 * request keep emailField, so an existing address still works there.
 */
export const newEmailField = (field = 'email', start: ValidationChain = body(field)): ValidationChain =>
  emailField(field, start)
    .bail()
    .custom((v: string) => !UNSAFE_LOCAL_PART.test(v.slice(0, v.lastIndexOf('@'))))
    .withMessage('Email must not have a quoted local part, white space or control characters');

/** Password policy: at least 6 characters; at most 72 bytes (bcrypt ignores what follows). */
export const passwordField = (field: string, start: ValidationChain = body(field)): ValidationChain =>
  start
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

/** C0 and C1 control characters (U+0000-U+001F, U+007F-U+009F): CR, LF and TAB included. */
export const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * A name-like optional text (first and last name, city, country): as optionalText, and after
 * trimming no control character anywhere (a line break would start a new record in an export).
 */
export const plainText = (field: string, label: string, max = 100): ValidationChain =>
  optionalText(field, label, max)
    .bail()
    .not()
    .matches(CONTROL_CHARACTER)
    .withMessage(`${field} must not contain control characters`);

// ---- hostile input (issue 13): dates the database can hold, ids of socket payloads

/** Dates are accepted from 1900-01-01T00:00:00Z up to 9999-12-31T23:59:59.999Z (the UTC instant). */
export const DATE_MIN = new Date(Date.UTC(1900, 0, 1));
export const DATE_MAX = new Date(Date.UTC(10000, 0, 1) - 1);

/**
 * True for a valid Date whose UTC instant lies in [DATE_MIN, DATE_MAX]. PostgreSQL refuses
 * year 0 and JavaScript cannot read back years past 9999 as ISO strings, so such dates are
 * input errors, not server errors (`9999-12-31T23:59:59-14:00` is year 10000 in UTC).
 */
export const isDateInRange = (value: unknown): boolean =>
  value instanceof Date && !Number.isNaN(value.getTime()) && value >= DATE_MIN && value <= DATE_MAX;

/**
 * The date atom: completes a chain (`body('startDate')`, `query('from')`, after `.optional()`
 * if wanted) with an ISO 8601 check (a real calendar date: no 30 February), the range of
 * isDateInRange, and a conversion to a Date. Anything but a string (a number, an array, an
 * object) is refused with the same message.
 */
export const isoDate = (chain: ValidationChain, label: string): ValidationChain =>
  chain
    .custom((v) => typeof v === 'string')
    .withMessage(`${label} must be an ISO 8601 date`)
    .bail()
    .isISO8601({ strict: true })
    .withMessage(`${label} must be an ISO 8601 date`)
    .bail()
    .custom((v: string) => isDateInRange(new Date(v)))
    .withMessage(`${label} must be between 1900-01-01 and 9999-12-31 (UTC)`)
    .bail()
    .customSanitizer((v: string) => new Date(v));

/**
 * A positive int32 id of a socket payload (`matchId`, `eventId`...), or 400 "Validation failed"
 * with details: an id of 2^31 or more cannot exist and never reaches the database.
 * `parseInt32(payload?.matchId, 'matchId')`.
 */
export function parseInt32(value: unknown, field: string): number {
  if (!isPositiveInt32(value)) {
    throw validationFailed([{ field, message: `${field} must be a whole number from 1 to ${INT32_MAX}` }]);
  }
  return value as number;
}

import { body, param, type ValidationChain } from 'express-validator';
import { newEmailField, passwordField, plainText } from '../../middleware/validators.js';

/** Social links: https URLs only (or null / "" to clear). */
const httpsUrl = (field: string): ValidationChain =>
  body(field)
    .optional({ values: 'null' })
    .isString()
    .withMessage(`${field} must be a string`)
    .bail()
    .trim()
    .if((v: string) => v !== '')
    .isLength({ max: 500 })
    .withMessage(`${field} must be at most 500 characters`)
    .bail()
    .isURL({ protocols: ['https'], require_protocol: true, require_valid_protocol: true })
    .withMessage(`${field} must be an https URL`);

export const updateProfileBody: ValidationChain[] = [
  body('username').not().exists().withMessage('Username cannot be changed'),
  plainText('firstName', 'First name'),
  plainText('lastName', 'Last name'),
  plainText('city', 'City'),
  plainText('country', 'Country'),
  newEmailField().optional(),
  // required by the service when the e-mail changes
  body('currentPassword').optional().isString().withMessage('Current password must be a string'),
  httpsUrl('instagramUrl'),
  httpsUrl('facebookUrl'),
  httpsUrl('youtubeUrl'),
  httpsUrl('tiktokUrl'),
];

/** The editable profile fields; null or "" clears a field. */
export interface ProfileUpdate {
  firstName?: string | null;
  lastName?: string | null;
  email?: string;
  /** needed to change the e-mail */
  currentPassword?: string;
  city?: string | null;
  country?: string | null;
  instagramUrl?: string | null;
  facebookUrl?: string | null;
  youtubeUrl?: string | null;
  tiktokUrl?: string | null;
}

export const changePasswordBody: ValidationChain[] = [
  body('currentPassword')
    .exists({ values: 'null' })
    .withMessage('Current password is required')
    .bail()
    .isString()
    .withMessage('Current password must be a string')
    .bail()
    .notEmpty()
    .withMessage('Current password is required'),
  passwordField('newPassword'),
];

export interface ChangePasswordInput {
  currentPassword: string;
  newPassword: string;
}

export const usernameParam: ValidationChain[] = [
  param('username').isLength({ min: 1, max: 50 }).withMessage('Username must be at most 50 characters'),
];

export interface UsernameParam {
  username: string;
}

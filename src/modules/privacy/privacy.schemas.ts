import { body, type ValidationChain } from 'express-validator';

/** DELETE /users/me: the current password (missing → 400 with a detail for currentPassword). */
export const deleteAccountBody: ValidationChain[] = [
  body('currentPassword')
    .exists({ values: 'null' })
    .withMessage('Current password is required to delete the account')
    .bail()
    .isString()
    .withMessage('Current password must be a string')
    .bail()
    .notEmpty()
    .withMessage('Current password is required to delete the account'),
];

export interface DeleteAccountInput {
  currentPassword: string;
}

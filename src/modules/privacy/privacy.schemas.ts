import { defineInput, type InputOf } from '../../middleware/input.js';
import { usernameParamField } from '../users/users.schemas.js';
import { currentPasswordField } from '../auth/auth.schemas.js';

/** DELETE /users/me: the current password (missing → 400 with a detail for currentPassword). */
export const deleteAccountInput = defineInput('deleteAccount', {
  body: { currentPassword: currentPasswordField('Current password is required to delete the account') },
});
export type DeleteAccountInput = InputOf<typeof deleteAccountInput>;

/** DELETE /admin/users/:username: the username, matched regardless of case by the service. */
export const adminDeleteUserInput = defineInput('adminDeleteUser', {
  params: { username: usernameParamField('matched regardless of case') },
});

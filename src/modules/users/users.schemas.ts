import { defineInput, f, type InputOf } from '../../middleware/input.js';
import { newEmailField } from '../../middleware/validators.js';
import { currentPasswordField, nameText, newEmail } from '../auth/auth.schemas.js';

/** Social links: https URLs only (or null / "" to clear). */
const httpsUrl = () =>
  f
    .custom<string | null>(
      { type: ['string', 'null'], maxLength: 500, description: 'https URL; null or "" clears' },
      (chain, field) =>
        chain
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
          .withMessage(`${field} must be an https URL`),
    )
    .optional('null');

const clearable =
  'null or "" clears; trimmed; a control character (U+0000-U+001F, U+007F-U+009F) → 400 "<field> must not contain control characters"';

/** PATCH /users/me: the editable profile fields; null or "" clears a field. */
export const updateProfileInput = defineInput('updateProfile', {
  body: {
    username: f
      .custom<never>({ not: {}, description: 'cannot be changed: given → 400 "Username cannot be changed"' }, (chain) =>
        chain.not().exists().withMessage('Username cannot be changed'),
      )
      .optional(),
    firstName: nameText('First name', clearable),
    lastName: nameText('Last name', clearable),
    city: nameText('City', clearable),
    country: nameText('Country', clearable),
    // newEmailField of validators.ts made optional (f.email builds its own chain, so .optional() would not reach it)
    email: f.custom<string>({ ...newEmail.schema }, (_chain, name) => newEmailField(name).optional()).optional(),
    // required by the service when the e-mail changes
    currentPassword: f
      .custom<string>({ type: 'string', description: 'required when `email` changes' }, (chain) =>
        chain.isString().withMessage('Current password must be a string'),
      )
      .optional(),
    instagramUrl: httpsUrl(),
    facebookUrl: httpsUrl(),
    youtubeUrl: httpsUrl(),
    tiktokUrl: httpsUrl(),
  },
});
export type ProfileUpdate = InputOf<typeof updateProfileInput>;

export const changePasswordInput = defineInput('changePassword', {
  body: {
    currentPassword: currentPasswordField('Current password is required'),
    newPassword: f.password().describe('6 characters to 72 bytes'),
  },
});
export type ChangePasswordInput = InputOf<typeof changePasswordInput>;

/** A `:username` path parameter of 1-50 characters (`description`: how the route matches it). */
export const usernameParamField = (description: string) =>
  f.custom<string>({ type: 'string', minLength: 1, maxLength: 50, description }, (chain) =>
    chain.isLength({ min: 1, max: 50 }).withMessage('Username must be at most 50 characters'),
  );

/** `:username` of the profile routes: exact, case-sensitive. */
export const usernameInput = defineInput('username', {
  params: { username: usernameParamField('exact, case-sensitive') },
});
export type UsernameParam = InputOf<typeof usernameInput>;

import { defineInput, f, type InputOf } from '../../middleware/input.js';

/** GET /registry/lookup?id=: a registry id of 1-10 digits. */
export const lookupInput = defineInput('registryLookup', {
  query: {
    id: f.custom<string>(
      { type: 'string', pattern: '^\\s*\\d{1,10}\\s*$', description: 'registry id: 1-10 digits' },
      (chain) =>
        chain
          .exists()
          .withMessage('id is required')
          .bail()
          .custom((v) => typeof v === 'string')
          .withMessage('id must be 1-10 digits')
          .bail()
          .trim()
          .matches(/^\d{1,10}$/)
          .withMessage('id must be 1-10 digits'),
    ),
  },
});
export type LookupQuery = InputOf<typeof lookupInput>;

import { defineInput, f, type InputOf } from '../../middleware/input.js';
import { AVATAR_SEED_PATTERN } from '../../lib/user-summary.js';

/** GET /avatars/:seed.svg: 1-64 characters of [A-Za-z0-9_-] (a username as registered). */
export const avatarSeedInput = defineInput('avatarSeed', {
  params: {
    seed: f.custom<string>(
      { type: 'string', pattern: AVATAR_SEED_PATTERN.source, description: 'the username as registered' },
      (chain) =>
        chain.matches(AVATAR_SEED_PATTERN).withMessage('Seed must be 1-64 characters of letters, digits, _ or -'),
    ),
  },
});
export type AvatarSeedParam = InputOf<typeof avatarSeedInput>;

import { param, type ValidationChain } from 'express-validator';
import { AVATAR_SEED_PATTERN } from '../../lib/user-summary.js';

/** GET /avatars/:seed.svg: 1-64 characters of [A-Za-z0-9_-] (a username as registered). */
export const avatarSeedParam: ValidationChain[] = [
  param('seed').matches(AVATAR_SEED_PATTERN).withMessage('Seed must be 1-64 characters of letters, digits, _ or -'),
];

export interface AvatarSeedParam {
  seed: string;
}

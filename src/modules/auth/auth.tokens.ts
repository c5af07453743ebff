import { randomDigits, randomToken, sha256 } from '../../lib/ids.js';

export const VERIFICATION_TTL_MS = 24 * 60 * 60 * 1000;
export const RESET_TTL_MS = 60 * 60 * 1000;
/** Wrong codes allowed per issued code; afterwards the code is void until a resend. */
export const MAX_CODE_ATTEMPTS = 5;

/** A new link token (32 random bytes, URL-safe) and 6-digit code; only their hashes are stored. */
export function newVerification(now: Date) {
  const token = randomToken(32);
  const code = randomDigits(6);
  return {
    token,
    code,
    stored: {
      verificationTokenHash: sha256(token),
      verificationCodeHash: sha256(code),
      verificationExpiresAt: new Date(now.getTime() + VERIFICATION_TTL_MS),
      verificationAttempts: 0,
    },
  };
}

/** A new password-reset token (32 random bytes, URL-safe), valid for an hour; only its hash is stored. */
export function newResetToken(now: Date) {
  const token = randomToken(32);
  return { token, stored: { resetTokenHash: sha256(token), resetExpiresAt: new Date(now.getTime() + RESET_TTL_MS) } };
}

/** Clears every verification field once the address is verified. */
export const clearedVerification = {
  verificationTokenHash: null,
  verificationCodeHash: null,
  verificationExpiresAt: null,
  verificationAttempts: 0,
};

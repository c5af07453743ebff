import { randomBytes, randomInt, createHash } from 'node:crypto';

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/**
 * Random alphanumeric slug for events and matches (OpenAPI document: random, alphanumeric,
 * at least 12 characters, never derived from the id or the name). 16 characters of a
 * 62-letter alphabet is about 95 bits.
 */
export function randomSlug(length = 16): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHANUMERIC[randomInt(ALPHANUMERIC.length)];
  return out;
}

/** URL-safe random token (base64url) of `bytes` random bytes. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** Uniform 6-digit numeric code, leading zeros kept. */
export function randomDigits(count = 6): string {
  let out = '';
  for (let i = 0; i < count; i++) out += String(randomInt(10));
  return out;
}

/** Tokens and codes are stored as SHA-256 hashes, never in clear. */
export function sha256(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from './config-error.js';

/** Length of a secret read from or written to a file (the JWT_SECRET rule). */
const MIN_LENGTH = 32;

function readSecret(file: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ConfigError(`Invalid configuration:\n  DATA_DIR: cannot read ${file} (${(err as NodeJS.ErrnoException).code})`);
  }
  const secret = text.trim();
  if (secret.length < MIN_LENGTH) {
    throw new ConfigError(`Invalid configuration:\n  DATA_DIR: ${file} holds no secret of ${MIN_LENGTH}+ characters (delete it to get a new one)`);
  }
  return secret;
}

/**
 * The secret kept in `file`, created on first use: 48 random bytes (base64url), file mode 600.
 * The file appears complete or not at all (written aside, then linked into place), so two
 * processes starting together (the service and the CLI) end up with the same secret.
 */
export function loadOrCreateSecret(file: string): string {
  const existing = readSecret(file);
  if (existing !== undefined) return existing;
  const secret = randomBytes(48).toString('base64url');
  const aside = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(aside, `${secret}\n`, { mode: 0o600, flag: 'wx' });
    linkSync(aside, file);
    return secret;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return readSecret(file) as string;
    throw new ConfigError(`Invalid configuration:\n  DATA_DIR: cannot create ${file} (${(err as NodeJS.ErrnoException).code})`);
  } finally {
    try {
      unlinkSync(aside);
    } catch {
      // not written
    }
  }
}

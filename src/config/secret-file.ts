import { randomBytes } from 'node:crypto';
import { closeSync, fstatSync, linkSync, mkdirSync, openSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from './config-error.js';

/** Length of a secret read from or written to a file (the JWT_SECRET rule). */
const MIN_LENGTH = 32;

/**
 * The secret signs every session: a file other users could read (steal it) or write (choose it),
 * or that another user owns (and so may change), is refused rather than trusted. Checked on the
 * opened file, so the file read is the file checked.
 */
function checkPrivate(file: string, fd: number): void {
  const st = fstatSync(fd);
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) {
    throw new ConfigError(
      `Invalid configuration:\n  DATA_DIR: ${file} is owned by another user (uid ${st.uid}); it must belong to the service's user`,
    );
  }
  if (process.platform !== 'win32' && (st.mode & 0o066) !== 0) {
    throw new ConfigError(
      `Invalid configuration:\n  DATA_DIR: ${file} is readable or writable by other users (mode ${(st.mode & 0o777).toString(8)}); chmod 600 it`,
    );
  }
}

function readSecret(file: string): string | undefined {
  let text: string;
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ConfigError(
      `Invalid configuration:\n  DATA_DIR: cannot read ${file} (${(err as NodeJS.ErrnoException).code})`,
    );
  }
  try {
    checkPrivate(file, fd);
    text = readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
  const secret = text.trim();
  if (secret.length < MIN_LENGTH) {
    throw new ConfigError(
      `Invalid configuration:\n  DATA_DIR: ${file} holds no secret of ${MIN_LENGTH}+ characters (delete it to get a new one)`,
    );
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
    throw new ConfigError(
      `Invalid configuration:\n  DATA_DIR: cannot create ${file} (${(err as NodeJS.ErrnoException).code})`,
    );
  } finally {
    try {
      unlinkSync(aside);
    } catch {
      // not written
    }
  }
}

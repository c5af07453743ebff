import { createSecretKey, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { AppError } from './errors.js';
import { sql, type SqlReader } from './sql.js';

/** The caller as seen by routes and socket handlers (loaded from the database). */
export interface AuthUser {
  id: number;
  username: string;
  email: string;
  avatar: string;
  isAdmin: boolean;
  emailVerified: boolean;
}

/** Read on every authenticated request and socket handshake, so never from a cache: a deleted or demoted user is refused at once. */
const authUserById = sql(
  'auth_user_by_id',
  'SELECT id, username, email, avatar, "isAdmin", "emailVerified" FROM "User" WHERE id = $1',
);

export interface JwtSettings {
  secret: string;
  expiresInSeconds: number;
}

/**
 * Access tokens: HS256, subject = user id, lifetime from the configuration (24 h by default).
 * The one token check shared by HTTP (requireAuth) and Socket.IO (handshake).
 */
export class TokenAuthenticator {
  /** a key object built once: jsonwebtoken would otherwise build one from the string per call */
  private readonly key: KeyObject;

  constructor(
    private readonly db: SqlReader,
    private readonly settings: JwtSettings,
  ) {
    this.key = createSecretKey(Buffer.from(settings.secret, 'utf8'));
  }

  sign(user: { id: number; emailVerified?: boolean }): string {
    return jwt.sign({ ev: user.emailVerified ?? false }, this.key, {
      algorithm: 'HS256',
      subject: String(user.id),
      expiresIn: this.settings.expiresInSeconds,
    });
  }

  /** Verifies signature (HS256 only: `alg: none` and others are refused) and expiry; returns the user id. */
  verify(token: string): number {
    try {
      const payload = jwt.verify(token, this.key, { algorithms: ['HS256'] });
      const sub = typeof payload === 'object' ? payload.sub : undefined;
      const id = Number(sub);
      if (!sub || !Number.isSafeInteger(id) || id <= 0) throw new AppError('INVALID_TOKEN');
      return id;
    } catch {
      throw new AppError('INVALID_TOKEN');
    }
  }

  /** Verifies the JWT and loads the user; a token of a deleted user is refused. */
  async authenticate(token: string): Promise<AuthUser> {
    const id = this.verify(token);
    const [user] = await this.db.rows<AuthUser>(authUserById, [id]);
    if (!user) throw new AppError('INVALID_TOKEN');
    return user;
  }
}

/** Extracts the token of an `Authorization: Bearer <token>` header; undefined when malformed. */
export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer ([A-Za-z0-9\-_]+\.[A-Za-z0-9\-_]+\.[A-Za-z0-9\-_]*)$/.exec(header.trim());
  return match?.[1];
}

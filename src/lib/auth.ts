import { createSecretKey, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { BatchedReads } from './batched-reads.js';
import { AppError } from './errors.js';
import type { ReadCache } from './read-cache.js';
import { sql, type SqlReader } from './sql.js';

/** The caller as seen by routes and socket handlers (loaded from the database). */
export interface AuthUser {
  id: number;
  username: string;
  email: string;
  avatar: string;
  isAdmin: boolean;
  emailVerified: boolean;
  /** the user's current token version (see TokenAuthenticator) */
  tokenVersion: number;
}

/** A verified token's session: whose it is, its token version and when it expires. */
export interface TokenSession {
  userId: number;
  tokenVersion: number;
  /** expiry instant in milliseconds since the epoch */
  expiresAt: number;
}

/**
 * Read on every authenticated request and socket handshake, from the database or, for reads
 * (GET), from the exact read cache (src/lib/read-cache.ts: dropped by any change of the user's
 * row, seen by a fence sent after the request arrived): a deleted user, a demoted admin or a
 * revoked session (older token version) is refused at once. The
 * users of requests and handshakes arriving together are read in one statement (BatchedReads:
 * each is read by a statement sent after it arrived), so a reconnect storm costs a few
 * statements instead of one queued query per socket.
 */
const authUsersByIds = sql(
  'auth_users_by_ids',
  'SELECT id, username, email, avatar, "isAdmin", "emailVerified", "tokenVersion" FROM "User" WHERE id = ANY($1::int[])',
);

/** Verified tokens remembered (the oldest go first): more than the sockets of a 3 000-dancer event. */
const VERIFIED_TOKENS = 20_000;

export interface JwtSettings {
  secret: string;
  expiresInSeconds: number;
}

/**
 * Access tokens: HS256, subject = user id, lifetime from the configuration (24 h by default),
 * claim `tv` = the user's token version. The one token check shared by HTTP (requireAuth) and
 * Socket.IO (handshake and room joins). A password change or reset increments the version, so
 * every earlier token is refused; a token without `exp` is refused.
 */
export class TokenAuthenticator {
  /** a key object built once: jsonwebtoken would otherwise build one from the string per call */
  private readonly key: KeyObject;
  /**
   * Tokens whose signature and claims were verified, with their session: a token is a fixed
   * string, so only its expiry needs checking again (a sixteenth of a cached hot read's CPU
   * went to verifying the same token, issue 29). Whether its session still holds (the user,
   * the token version) is read on every request as before.
   */
  private readonly verified = new Map<string, { session: TokenSession; exp: number }>();
  /** the users of the sessions being checked, read together (see authUsersByIds) */
  private readonly users: BatchedReads<number, AuthUser>;

  /**
   * `sessions`: the read cache the users of sessions are kept in for reads (GET), see
   * authenticate. Every read of a user from the database is kept there too (a socket's
   * handshake, a write's session check): a phone whose socket connected finds its user there at
   * its first poll (a user read costs a statement at every caller's first read otherwise).
   */
  constructor(
    db: SqlReader,
    private readonly settings: JwtSettings,
    private readonly sessions?: ReadCache,
  ) {
    this.key = createSecretKey(Buffer.from(settings.secret, 'utf8'));
    this.users = new BatchedReads(async (ids) => {
      const rows = await db.rows<AuthUser>(authUsersByIds, [ids]);
      return new Map(rows.map((u) => [u.id, u]));
    });
  }

  sign(
    user: { id: number; emailVerified?: boolean; tokenVersion?: number },
    expiresInSeconds = this.settings.expiresInSeconds,
  ): string {
    return jwt.sign({ ev: user.emailVerified ?? false, tv: user.tokenVersion ?? 0 }, this.key, {
      algorithm: 'HS256',
      subject: String(user.id),
      expiresIn: expiresInSeconds,
    });
  }

  /** A token of the user as the user is now (their token version), for `seconds`; undefined for an unknown user. */
  async signFor(userId: number, seconds: number): Promise<string | undefined> {
    const user = await this.users.load(userId);
    return user && this.sign(user, seconds);
  }

  /**
   * Verifies signature (HS256 only: `alg: none` and others are refused) and expiry; a token
   * without a numeric `exp` or a positive integer subject is refused. A token without `tv`
   * (issued before token versions existed) counts as version 0.
   */
  verify(token: string): TokenSession {
    const known = this.verified.get(token);
    // jsonwebtoken's expiry rule: expired from the second of `exp` on
    if (known && Math.floor(Date.now() / 1000) < known.exp) return { ...known.session };
    const { session, exp } = this.verifySignature(token);
    this.verified.set(token, { session, exp });
    if (this.verified.size > VERIFIED_TOKENS) this.verified.delete(this.verified.keys().next().value as string);
    return { ...session };
  }

  private verifySignature(token: string): { session: TokenSession; exp: number } {
    try {
      const payload = jwt.verify(token, this.key, { algorithms: ['HS256'] });
      if (typeof payload !== 'object') throw new AppError('INVALID_TOKEN');
      const userId = Number(payload.sub);
      const tokenVersion = payload.tv ?? 0;
      if (!payload.sub || !Number.isSafeInteger(userId) || userId <= 0) throw new AppError('INVALID_TOKEN');
      if (typeof payload.exp !== 'number' || !Number.isFinite(payload.exp)) throw new AppError('INVALID_TOKEN');
      if (!Number.isSafeInteger(tokenVersion)) throw new AppError('INVALID_TOKEN');
      return { session: { userId, tokenVersion, expiresAt: payload.exp * 1000 }, exp: payload.exp };
    } catch {
      throw new AppError('INVALID_TOKEN');
    }
  }

  /**
   * Verifies the JWT and loads the user; a token of a deleted user or of an older token version
   * is refused. With `cache` (only after a fence of the caller's request), the user comes from
   * it while the user's row is unchanged.
   */
  async authenticate(token: string, cache?: ReadCache): Promise<AuthUser> {
    const session = this.verify(token);
    if (!cache) return this.currentUser(session);
    const user = cache.get<AuthUser>(sessionKey(session.userId)) ?? (await this.loadUser(session.userId, cache));
    if (!user || user.tokenVersion !== session.tokenVersion) throw new AppError('INVALID_TOKEN');
    return { ...user }; // callers never share an object
  }

  /** As authenticate, with the token's session (the socket handshake keeps its expiry). */
  async authenticateSession(token: string): Promise<{ user: AuthUser; session: TokenSession }> {
    const session = this.verify(token);
    return { user: await this.currentUser(session), session };
  }

  /** Loads the user of a session as it is now; 401 INVALID_TOKEN when deleted or the session was revoked. */
  async currentUser(session: Pick<TokenSession, 'userId' | 'tokenVersion'>): Promise<AuthUser> {
    const user = await this.loadUser(session.userId);
    if (!user || user.tokenVersion !== session.tokenVersion) throw new AppError('INVALID_TOKEN');
    return { ...user }; // callers of one batch never share an object
  }

  /**
   * The user as it is in the database now, kept in the sessions' cache: the stamp is taken
   * before the statement is sent, so a change committed after the read drops the entry (the
   * read cache's rule for every entry).
   */
  private async loadUser(userId: number, cache = this.sessions): Promise<AuthUser | undefined> {
    const stamp = cache?.stamp();
    const user = await this.users.load(userId);
    if (user && stamp) cache!.set(sessionKey(userId), user, 1, [`User:${userId}`, 'User:*'], stamp);
    return user;
  }
}

/** The read cache's key of a session's user. */
const sessionKey = (userId: number) => `session ${userId}`;

/** Extracts the token of an `Authorization: Bearer <token>` header; undefined when malformed. */
export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer ([A-Za-z0-9\-_]+\.[A-Za-z0-9\-_]+\.[A-Za-z0-9\-_]*)$/.exec(header.trim());
  return match?.[1];
}

import jwt from 'jsonwebtoken';
import { config } from '../config/index.js';
import { prisma } from './prisma.js';
import { invalidToken } from './errors.js';

/** The caller as seen by routes and socket handlers (loaded from the database). */
export interface AuthUser {
  id: number;
  username: string;
  email: string;
  avatar: string;
  isAdmin: boolean;
  emailVerified: boolean;
}

const authUserSelect = {
  id: true,
  username: true,
  email: true,
  avatar: true,
  isAdmin: true,
  emailVerified: true,
} as const;

/** HS256 access token, subject = user id, lifetime 24 h (SPEC.md "Authentication"). */
export function signAccessToken(user: { id: number; emailVerified?: boolean }): string {
  return jwt.sign({ ev: user.emailVerified ?? false }, config.jwt.secret, {
    algorithm: 'HS256',
    subject: String(user.id),
    expiresIn: config.jwt.expiresInSeconds,
  });
}

/** Verifies signature (HS256 only: `alg: none` and others are refused) and expiry. */
export function verifyAccessToken(token: string): number {
  try {
    const payload = jwt.verify(token, config.jwt.secret, { algorithms: ['HS256'] });
    const sub = typeof payload === 'object' ? payload.sub : undefined;
    const id = Number(sub);
    if (!sub || !Number.isSafeInteger(id) || id <= 0) throw invalidToken();
    return id;
  } catch {
    throw invalidToken();
  }
}

/**
 * The one token check shared by HTTP (requireAuth) and Socket.IO (handshake):
 * verifies the JWT and loads the user; a token of a deleted user is refused.
 */
export async function authenticateToken(token: string): Promise<AuthUser> {
  const id = verifyAccessToken(token);
  const user = await prisma.user.findUnique({ where: { id }, select: authUserSelect });
  if (!user) throw invalidToken();
  return user;
}

/** Extracts the token of an `Authorization: Bearer <token>` header; undefined when malformed. */
export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer ([A-Za-z0-9\-_]+\.[A-Za-z0-9\-_]+\.[A-Za-z0-9\-_]*)$/.exec(header.trim());
  return match?.[1];
}

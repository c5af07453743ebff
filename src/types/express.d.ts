import type { AuthUser } from '../lib/auth.js';

declare global {
  namespace Express {
    interface Request {
      /** set by requireAuth / optionalAuth */
      user?: AuthUser;
    }
  }
}

export {};

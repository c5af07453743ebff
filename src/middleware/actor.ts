import type { Request } from 'express';
import type { Actor } from '../lib/actor.js';

/** The actor of an HTTP request: the authenticated user (if any), client IP, method and path. */
export function actorOf(req: Request): Actor {
  return {
    user: req.user ?? null,
    userId: req.user?.id ?? null,
    username: req.user?.username ?? null,
    ip: req.ip ?? null,
    method: req.method,
    path: req.originalUrl.split('?')[0],
  };
}

import type { RequestHandler } from 'express';

/**
 * Rate limiters in three tiers (general API, authentication, e-mail sending).
 * Placeholder pass-throughs until the accounts feature implements them with express-rate-limit.
 */
const passThrough: RequestHandler = (_req, _res, next) => next();

export const generalLimiter: RequestHandler = passThrough;
export const authLimiter: RequestHandler = passThrough;
export const emailLimiter: RequestHandler = passThrough;

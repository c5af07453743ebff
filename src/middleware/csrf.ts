import type { RequestHandler } from 'express';

/** CSRF protection (csrf-csrf double submit). Placeholder until the accounts feature implements it. */
export const csrfProtection: RequestHandler = (_req, _res, next) => next();

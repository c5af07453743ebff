import { Router } from 'express';
import type { Container } from '../../container.js';
import { sendData } from '../../lib/http.js';
import { input, validate } from '../../middleware/validate.js';
import { lookupQuery, type LookupQuery } from './registry.schemas.js';

/** No token (prefills the registration form); rate limited with the e-mail tier. */
export function createRegistryRouter({ limiters, registry }: Pick<Container, 'limiters' | 'registry'>): Router {
  const router = Router();
  router.get('/registry/lookup', limiters.email, validate(...lookupQuery), async (_req, res) => {
    sendData(res, await registry.lookupDancer(input<LookupQuery>(res).id));
  });
  return router;
}

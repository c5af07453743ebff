import { Router } from 'express';
import type { RateLimiters } from '../../middleware/rate-limit.js';
import type { RegistryService } from './registry.service.js';
import { sendData } from '../../lib/http.js';
import { actorOf } from '../../middleware/actor.js';
import { validate } from '../../middleware/validate.js';
import { lookupInput } from './registry.schemas.js';

/** What the router calls (built by src/container.ts). */
export interface RegistryRouterDeps {
  limiters: RateLimiters;
  registry: RegistryService;
}

/** No token (prefills the registration form); rate limited with the e-mail tier. */
export function createRegistryRouter({ limiters, registry }: RegistryRouterDeps): Router {
  const router = Router();
  router.get('/registry/lookup', limiters.email, validate(lookupInput), async (req, res) => {
    sendData(res, await registry.lookupDancer(actorOf(req), lookupInput.from(res)));
  });
  return router;
}

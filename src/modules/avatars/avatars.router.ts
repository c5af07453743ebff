import { Router } from 'express';
import { actorOf } from '../../middleware/actor.js';
import { validate } from '../../middleware/validate.js';
import type { AvatarsService } from './avatars.service.js';
import { avatarSeedInput } from './avatars.schemas.js';

/**
 * GET /avatars/:seed.svg: the avatar of a seed, rendered by the service (no token). Mounted
 * before the general rate limit (src/app.ts): a page of participants loads many at once, and
 * each URL is cached by browsers for a year. `Cross-Origin-Resource-Policy: cross-origin` lets the
 * web app on another origin show it (helmet sets same-origin by default).
 */
export function createAvatarsRouter({ avatars }: { avatars: Pick<AvatarsService, 'render'> }): Router {
  const router = Router();
  router.get('/avatars/:seed.svg', validate(avatarSeedInput), async (req, res) => {
    const svg = await avatars.render(actorOf(req), avatarSeedInput.from(res));
    res
      .set({
        'Cache-Control': 'public, max-age=31536000, immutable',
        'X-Content-Type-Options': 'nosniff',
        'Cross-Origin-Resource-Policy': 'cross-origin',
      })
      .type('image/svg+xml')
      .send(svg);
  });
  return router;
}

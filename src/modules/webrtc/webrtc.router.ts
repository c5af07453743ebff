import { Router } from 'express';
import type { AuthGuards } from '../../middleware/auth.js';
import type { TransfersService } from './transfers.service.js';
import type { WebrtcService } from './webrtc.service.js';
import { sendData, sendList } from '../../lib/http.js';
import { actorOf } from '../../middleware/actor.js';
import { input, validate } from '../../middleware/validate.js';
import {
  createTransferSchema,
  matchSlugSchema,
  transferIdSchema,
  updateTransferSchema,
  type CreateTransferInput,
  type UpdateTransferInput,
} from './webrtc.schemas.js';

/** What the router calls (built by src/container.ts). */
export interface WebrtcRouterDeps {
  guards: AuthGuards;
  webrtc: WebrtcService;
  transfers: TransfersService;
}

/** ICE servers and transfer records of the video hand-off. */
export function createWebrtcRouter({ guards, webrtc, transfers }: WebrtcRouterDeps): Router {
  const router = Router();
  const { requireAuth } = guards;

  router.get('/webrtc/ice-servers', requireAuth, async (req, res) => {
    const view = await webrtc.iceServers(actorOf(req));
    // TURN credentials are per user and time-limited: never cached by a proxy.
    res.set('Cache-Control', 'no-store');
    sendData(res, view);
  });

  router.post('/matches/:slug/transfers', requireAuth, validate(...createTransferSchema), async (req, res) => {
    sendData(res, await transfers.create(actorOf(req), input<CreateTransferInput & { slug: string }>(res)), 201);
  });

  router.patch(
    '/matches/:slug/transfers/:id',
    requireAuth,
    validate(...transferIdSchema, ...updateTransferSchema),
    async (req, res) => {
      const { slug, id, status } = input<UpdateTransferInput & { slug: string; id: number }>(res);
      sendData(res, await transfers.update(actorOf(req), { slug, id, status }));
    },
  );

  router.get('/matches/:slug/transfers', requireAuth, validate(...matchSlugSchema), async (req, res) => {
    sendList(res, await transfers.list(actorOf(req), input<{ slug: string }>(res)));
  });

  return router;
}

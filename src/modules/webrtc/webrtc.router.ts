import { Router } from 'express';
import type { AuthGuards } from '../../middleware/auth.js';
import type { TransfersService } from './transfers.service.js';
import type { WebrtcService } from './webrtc.service.js';
import { sendData, sendList } from '../../lib/http.js';
import { actorOf } from '../../middleware/actor.js';
import { validate } from '../../middleware/validate.js';
import { createTransferInput, matchTransfersInput, updateTransferInput } from './webrtc.schemas.js';

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

  router.post('/matches/:slug/transfers', requireAuth, validate(createTransferInput), async (req, res) => {
    sendData(res, await transfers.create(actorOf(req), createTransferInput.from(res)), 201);
  });

  router.patch('/matches/:slug/transfers/:id', requireAuth, validate(updateTransferInput), async (req, res) => {
    sendData(res, await transfers.update(actorOf(req), updateTransferInput.from(res)));
  });

  router.get('/matches/:slug/transfers', requireAuth, validate(matchTransfersInput), async (req, res) => {
    sendList(res, await transfers.list(actorOf(req), matchTransfersInput.from(res)));
  });

  return router;
}

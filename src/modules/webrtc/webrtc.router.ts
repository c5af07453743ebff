import { Router, type Request } from 'express';
import { matchedData } from 'express-validator';
import { sendData, sendList } from '../../lib/http.js';
import { currentUser, requireAuth } from '../../middleware/auth.js';
import { validate } from '../../middleware/validate.js';
import type { TransfersService } from './transfers.service.js';
import type { WebrtcService } from './webrtc.service.js';
import {
  createTransferSchema,
  matchSlugSchema,
  transferIdSchema,
  updateTransferSchema,
  type CreateTransferInput,
  type UpdateTransferInput,
} from './webrtc.schemas.js';

/** The validated input (body and params) of a request. */
const input = <T>(req: Request) => matchedData(req, { includeOptionals: true }) as T;

/** ICE servers and transfer records of the video hand-off. */
export function createWebrtcRouter(services: { webrtc: WebrtcService; transfers: TransfersService }): Router {
  const router = Router();

  router.get('/webrtc/ice-servers', requireAuth, (req, res) => {
    // TURN credentials are per user and time-limited: never cached by a proxy.
    res.set('Cache-Control', 'no-store');
    sendData(res, services.webrtc.iceServers(currentUser(req).id));
  });

  router.post('/matches/:slug/transfers', requireAuth, validate(...createTransferSchema), async (req, res) => {
    const { slug, ...body } = input<CreateTransferInput & { slug: string }>(req);
    sendData(res, await services.transfers.create(currentUser(req), slug, body), 201);
  });

  router.patch('/matches/:slug/transfers/:id', requireAuth, validate(...transferIdSchema, ...updateTransferSchema), async (req, res) => {
    const { slug, id, status } = input<UpdateTransferInput & { slug: string; id: number }>(req);
    sendData(res, await services.transfers.update(currentUser(req), slug, id, { status }));
  });

  router.get('/matches/:slug/transfers', requireAuth, validate(...matchSlugSchema), async (req, res) => {
    const { slug } = input<{ slug: string }>(req);
    sendList(res, await services.transfers.list(currentUser(req), slug));
  });

  return router;
}

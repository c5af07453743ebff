import { Router } from 'express';
import type { AuthGuards } from '../../middleware/auth.js';
import type { HeatsService } from './heats.service.js';
import { sendData, sendList, sendMessage } from '../../lib/http.js';
import { actorOf } from '../../middleware/actor.js';
import { validate } from '../../middleware/validate.js';
import { deleteHeatInput, eventHeatsInput, replaceHeatsInput } from './heats.schemas.js';

/** What the router calls (built by src/container.ts). */
export interface HeatsRouterDeps {
  guards: AuthGuards;
  heats: HeatsService;
}

/** Reference data (public) and the participants' heats at an event. */
export function createHeatsRouter({ guards, heats }: HeatsRouterDeps): Router {
  const router = Router();

  router.get('/divisions', async (req, res) => {
    sendData(res, await heats.divisions(actorOf(req)));
  });

  router.get('/competition-types', async (req, res) => {
    sendData(res, await heats.competitionTypes(actorOf(req)));
  });

  // Check order: body 400 → event 404 → participation 403 → duplicates 400.
  router.post('/events/:slug/heats', guards.requireAuth, validate(replaceHeatsInput), async (req, res) => {
    sendList(res, await heats.replaceHeats(actorOf(req), replaceHeatsInput.from(res)));
  });

  router.get('/events/:slug/heats/me', guards.requireAuth, validate(eventHeatsInput), async (req, res) => {
    sendList(res, await heats.myHeats(actorOf(req), eventHeatsInput.from(res)));
  });

  router.get('/events/:slug/heats/all', guards.requireAuth, validate(eventHeatsInput), async (req, res) => {
    sendList(res, await heats.allHeats(actorOf(req), eventHeatsInput.from(res)));
  });

  router.delete('/events/:slug/heats/:id', guards.requireAuth, validate(deleteHeatInput), async (req, res) => {
    await heats.deleteHeat(actorOf(req), deleteHeatInput.from(res));
    sendMessage(res, 'Heat deleted successfully');
  });
  return router;
}

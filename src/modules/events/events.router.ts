import { Router } from 'express';
import type { AuthGuards } from '../../middleware/auth.js';
import type { CachedRead } from '../../middleware/cached-read.js';
import type { EventsService } from './events.service.js';
import { sendData, sendFile, sendList, sendMessage } from '../../lib/http.js';
import { actorOf } from '../../middleware/actor.js';
import { currentUser } from '../../middleware/auth.js';
import { input, validate } from '../../middleware/validate.js';
import {
  checkinParams,
  createEventRules,
  qrQuery,
  slugParams,
  updateEventRules,
  type CheckinInput,
  type CreateEventInput,
  type QrInput,
  type SlugInput,
  type UpdateEventInput,
} from './events.schemas.js';

/** What the router calls (built by src/container.ts). */
export interface EventsRouterDeps {
  guards: AuthGuards;
  cachedRead: CachedRead;
  events: EventsService;
}

/** Every table the event list reads (events.service.ts: the events, the caller's participations, the counts). */
const LIST_TABLES = ['Event', 'EventParticipant'];
/** Every table the details read (events.service.ts, getDetails): the caller's admin flag is a "User" column. */
const DETAILS_TABLES = ['Event', 'EventParticipant', 'EventCheckinToken', 'User'];

/** Events: lists and views, check-in and leave, and admin management (events.openapi.ts). */
export function createEventsRouter({ guards, cachedRead, events }: EventsRouterDeps): Router {
  const router = Router();
  const admin = [guards.requireAuth, guards.requireAdmin];

  router.get('/events', guards.requireAuth, cachedRead(LIST_TABLES), async (req, res) => {
    sendList(res, await events.list(currentUser(req).id));
  });

  router.post('/events/checkin/:token', guards.requireAuth, validate(...checkinParams), async (req, res) => {
    const { token } = input<CheckinInput>(res);
    sendData(res, await events.checkin(actorOf(req), token, currentUser(req).id));
  });

  router.get('/events/:slug', validate(...slugParams), async (_req, res) => {
    sendData(res, await events.getPublic(input<SlugInput>(res).slug));
  });

  router.get(
    '/events/:slug/details',
    guards.requireAuth,
    validate(...slugParams),
    cachedRead(DETAILS_TABLES),
    async (req, res) => {
      sendData(res, await events.getDetails(input<SlugInput>(res).slug, currentUser(req)));
    },
  );

  router.get('/events/:slug/checkin-qr', guards.requireAuth, validate(...qrQuery), async (req, res) => {
    const { slug, format } = input<QrInput>(res);
    sendFile(res, await events.getCheckinQr(slug, currentUser(req), format ?? 'png'));
  });

  router.delete('/events/:slug/leave', guards.requireAuth, validate(...slugParams), async (req, res) => {
    await events.leave(actorOf(req), input<SlugInput>(res).slug, currentUser(req).id);
    sendMessage(res, 'You have left the event');
  });

  // Admin event management (POST also backs the CLI's event:create).
  router.post('/admin/events', ...admin, validate(...createEventRules), async (req, res) => {
    sendData(res, await events.create(actorOf(req), input<CreateEventInput>(res)), 201);
  });

  router.patch('/admin/events/:slug', ...admin, validate(...updateEventRules), async (req, res) => {
    const { slug, ...changes } = input<UpdateEventInput>(res);
    sendData(res, await events.update(actorOf(req), slug, changes));
  });
  return router;
}

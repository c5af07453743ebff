import { Router } from 'express';
import type { AuthGuards } from '../../middleware/auth.js';
import { freshReads, type CachedRead } from '../../middleware/cached-read.js';
import type { CheckinService } from './checkin.service.js';
import type { EventsService } from './events.service.js';
import { sendData, sendFile, sendList, sendMessage } from '../../lib/http.js';
import { actorOf } from '../../middleware/actor.js';
import { validate } from '../../middleware/validate.js';
import { checkinInput, createEventInput, qrInput, slugInput, updateEventInput } from './events.schemas.js';

/** What the router calls (built by src/container.ts). */
export interface EventsRouterDeps {
  guards: AuthGuards;
  cachedRead: CachedRead;
  events: EventsService;
  checkin: CheckinService;
}

/** Every table the event list reads (events.service.ts: the events, the caller's participations, the counts). */
const LIST_TABLES = ['Event', 'EventParticipant'];
/** Every table the details read (events.service.ts, getDetails): the caller's admin flag is a "User" column. */
const DETAILS_TABLES = ['Event', 'EventParticipant', 'EventCheckinToken', 'User'];

/** Events: lists and views, check-in and leave, and admin management (events.openapi.ts). */
export function createEventsRouter({ guards, cachedRead, events, checkin }: EventsRouterDeps): Router {
  const router = Router();
  const admin = [guards.requireAuth, guards.requireAdmin];

  router.get('/events', guards.requireAuth, cachedRead(LIST_TABLES), async (req, res) => {
    sendList(res, await events.list(actorOf(req), freshReads(res)));
  });

  router.post('/events/checkin/:token', guards.requireAuth, validate(checkinInput), async (req, res) => {
    sendData(res, await checkin.checkin(actorOf(req), checkinInput.from(res)));
  });

  router.get('/events/:slug', validate(slugInput), async (req, res) => {
    sendData(res, await events.getPublic(actorOf(req), slugInput.from(res)));
  });

  router.get(
    '/events/:slug/details',
    guards.requireAuth,
    validate(slugInput),
    cachedRead(DETAILS_TABLES),
    async (req, res) => {
      sendData(res, await events.getDetails(actorOf(req), slugInput.from(res), freshReads(res)));
    },
  );

  router.get('/events/:slug/checkin-qr', guards.requireAuth, validate(qrInput), async (req, res) => {
    sendFile(res, await checkin.getQr(actorOf(req), qrInput.from(res)));
  });

  router.delete('/events/:slug/leave', guards.requireAuth, validate(slugInput), async (req, res) => {
    await checkin.leave(actorOf(req), slugInput.from(res));
    sendMessage(res, 'You have left the event');
  });

  // Admin event management (POST also backs the CLI's event:create).
  router.post('/admin/events', ...admin, validate(createEventInput), async (req, res) => {
    sendData(res, await events.create(actorOf(req), createEventInput.from(res)), 201);
  });

  router.patch('/admin/events/:slug', ...admin, validate(updateEventInput), async (req, res) => {
    sendData(res, await events.update(actorOf(req), updateEventInput.from(res)));
  });
  return router;
}

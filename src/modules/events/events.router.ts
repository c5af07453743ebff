import { Router } from 'express';
import { matchedData } from 'express-validator';
import { sendData, sendList, sendMessage } from '../../lib/http.js';
import { currentUser, requireAdmin, requireAuth } from '../../middleware/auth.js';
import { validate } from '../../middleware/validate.js';
import { logActivity } from '../activity-log/activity-log.service.js';
import { removeUserFromEventRoom } from '../chat/chat.socket.js';
import * as events from './events.service.js';
import { createEventRules, qrQuery, updateEventRules } from './events.validators.js';

export const eventsRouter = Router();

eventsRouter.get('/events', requireAuth, async (req, res) => {
  sendList(res, await events.listEvents(currentUser(req).id));
});

eventsRouter.post('/events/checkin/:token', requireAuth, async (req, res) => {
  const result = await events.checkin(String(req.params.token), currentUser(req).id);
  if (!result.alreadyCheckedIn) {
    await logActivity({ req, category: 'event', action: 'checkin', resource: `event:${result.event.slug}` });
  }
  sendData(res, result);
});

eventsRouter.get('/events/:slug', async (req, res) => {
  sendData(res, await events.getPublicEvent(String(req.params.slug)));
});

eventsRouter.get('/events/:slug/details', requireAuth, async (req, res) => {
  sendData(res, await events.getEventDetails(String(req.params.slug), currentUser(req)));
});

eventsRouter.get('/events/:slug/checkin-qr', requireAuth, validate(qrQuery), async (req, res) => {
  const format = req.query.format === 'svg' ? 'svg' : 'png';
  const qr = await events.getCheckinQr(String(req.params.slug), currentUser(req), format);
  res.set('Cache-Control', 'private, no-store').type(qr.contentType).send(qr.body);
});

eventsRouter.delete('/events/:slug/leave', requireAuth, async (req, res) => {
  const userId = currentUser(req).id;
  const event = await events.leaveEvent(String(req.params.slug), userId);
  await removeUserFromEventRoom(userId, event.id);
  await logActivity({ req, category: 'event', action: 'leave', resource: `event:${event.slug}` });
  sendMessage(res, 'You have left the event');
});

// Admin event management (DECISIONS.md "Events": the spec has no endpoint creating events).
eventsRouter.post('/admin/events', requireAuth, requireAdmin, validate(...createEventRules), async (req, res) => {
  const event = await events.createEvent(matchedData(req, { locations: ['body'] }) as events.EventFields);
  await logActivity({ req, category: 'event', action: 'event_create', resource: `event:${event.slug}` });
  sendData(res, event, 201);
});

eventsRouter.patch(
  '/admin/events/:slug',
  requireAuth,
  requireAdmin,
  validate(...updateEventRules),
  async (req, res) => {
    const changes = matchedData(req, { locations: ['body'] }) as Partial<events.EventFields>;
    // null clears an optional text field (matchedData leaves null values out)
    for (const key of ['worldRegistryId', 'description'] as const) if (req.body[key] === null) changes[key] = null;
    const event = await events.updateEvent(String(req.params.slug), changes);
    await logActivity({
      req,
      category: 'event',
      action: 'event_update',
      resource: `event:${event.slug}`,
      metadata: { fields: Object.keys(changes) },
    });
    sendData(res, event);
  },
);

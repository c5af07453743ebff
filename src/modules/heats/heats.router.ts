import { Router, type Request } from 'express';
import { sendData, sendList, sendMessage } from '../../lib/http.js';
import { currentUser, requireAdmin, requireAuth } from '../../middleware/auth.js';
import { validate } from '../../middleware/validate.js';
import { logActivity } from '../activity-log/activity-log.service.js';
import * as settings from './event-settings.service.js';
import { allHeats, deleteHeat, listCompetitionTypes, listDivisions, myHeats, replaceHeats } from './heats.service.js';
import {
  competitorNumberRules,
  parseHeatId,
  recorderOptOutRules,
  registrationDeadlineRules,
  validateHeatsBody,
  validateScheduleConfigBody,
} from './heats.validators.js';

export const heatsRouter = Router();

const slugOf = (req: Request) => String(req.params.slug);
const resource = (req: Request) => `event:${slugOf(req)}`;

// ---- reference data (public) ----

heatsRouter.get('/divisions', async (_req, res) => {
  sendData(res, await listDivisions());
});

heatsRouter.get('/competition-types', async (_req, res) => {
  sendData(res, await listCompetitionTypes());
});

// ---- heats ----

// Check order (SPEC): body 400 → event 404 → participation 403.
heatsRouter.post('/events/:slug/heats', requireAuth, validateHeatsBody, async (req, res) => {
  const user = currentUser(req);
  const { heats } = await replaceHeats(slugOf(req), user, req.body.heats);
  await logActivity({ req, category: 'event', action: 'heats_save', resource: resource(req), metadata: { count: heats.length } });
  sendList(res, heats);
});

heatsRouter.get('/events/:slug/heats/me', requireAuth, async (req, res) => {
  sendList(res, await myHeats(slugOf(req), currentUser(req).id));
});

heatsRouter.get('/events/:slug/heats/all', requireAuth, async (req, res) => {
  sendList(res, await allHeats(slugOf(req)));
});

heatsRouter.delete('/events/:slug/heats/:id', requireAuth, async (req, res) => {
  const { deleted } = await deleteHeat(slugOf(req), parseHeatId(req.params.id), currentUser(req));
  await logActivity({ req, category: 'event', action: 'heat_delete', resource: resource(req), metadata: { heat: { ...deleted } } });
  sendMessage(res, 'Heat deleted successfully');
});

// ---- per-event settings ----

heatsRouter.put('/events/:slug/competitor-number', requireAuth, validate(...competitorNumberRules), async (req, res) => {
  const { setting } = await settings.setCompetitorNumber(slugOf(req), currentUser(req).id, req.body.competitorNumber);
  await logActivity({ req, category: 'event', action: 'competitor_number_update', resource: resource(req), metadata: setting });
  sendData(res, setting);
});

heatsRouter.put('/events/:slug/recorder-opt-out', requireAuth, validate(...recorderOptOutRules), async (req, res) => {
  const { setting } = await settings.setRecorderOptOut(slugOf(req), currentUser(req).id, req.body.optOut);
  await logActivity({ req, category: 'event', action: 'recorder_opt_out_update', resource: resource(req), metadata: setting });
  sendData(res, setting);
});

heatsRouter.put(
  '/events/:slug/registration-deadline',
  requireAuth,
  requireAdmin,
  validate(...registrationDeadlineRules),
  async (req, res) => {
    const { setting, previous } = await settings.setRegistrationDeadline(slugOf(req), req.body.registrationDeadline);
    await logActivity({
      req,
      category: 'admin',
      action: 'registration_deadline_update',
      resource: resource(req),
      metadata: { previous: previous?.toISOString() ?? null, registrationDeadline: setting.registrationDeadline?.toISOString() ?? null },
    });
    sendData(res, setting);
  },
);

heatsRouter.put('/events/:slug/schedule-config', requireAuth, requireAdmin, validateScheduleConfigBody, async (req, res) => {
  const { setting } = await settings.setScheduleConfig(slugOf(req), req.body.scheduleConfig);
  await logActivity({
    req,
    category: 'admin',
    action: 'schedule_config_update',
    resource: resource(req),
    metadata: { scheduleConfig: setting.scheduleConfig as unknown as Record<string, never> },
  });
  sendData(res, setting);
});

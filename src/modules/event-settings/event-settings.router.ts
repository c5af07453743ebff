import { Router } from 'express';
import type { AuthGuards } from '../../middleware/auth.js';
import type { EventSettingsService } from './event-settings.service.js';
import { sendData } from '../../lib/http.js';
import { actorOf } from '../../middleware/actor.js';
import { validate } from '../../middleware/validate.js';
import {
  competitorNumberInput,
  recorderOptOutInput,
  registrationDeadlineInput,
  scheduleConfigInput,
} from './event-settings.schemas.js';

/** What the router calls (built by src/container.ts). */
export interface EventSettingsRouterDeps {
  guards: AuthGuards;
  eventSettings: EventSettingsService;
}

/**
 * Per-event settings: a participant's own (competitor number, recorder opt-out) and the
 * admins' (registration deadline, schedule configuration). Check order: 401 → 403 (admin
 * routes) → validation 400 → event 404 → participation 403 (own settings).
 */
export function createEventSettingsRouter({ guards, eventSettings }: EventSettingsRouterDeps): Router {
  const router = Router();
  const admin = [guards.requireAuth, guards.requireAdmin];

  router.put(
    '/events/:slug/competitor-number',
    guards.requireAuth,
    validate(competitorNumberInput),
    async (req, res) => {
      sendData(res, await eventSettings.setCompetitorNumber(actorOf(req), competitorNumberInput.from(res)));
    },
  );

  router.put('/events/:slug/recorder-opt-out', guards.requireAuth, validate(recorderOptOutInput), async (req, res) => {
    sendData(res, await eventSettings.setRecorderOptOut(actorOf(req), recorderOptOutInput.from(res)));
  });

  router.put('/events/:slug/registration-deadline', ...admin, validate(registrationDeadlineInput), async (req, res) => {
    sendData(res, await eventSettings.setRegistrationDeadline(actorOf(req), registrationDeadlineInput.from(res)));
  });

  router.put('/events/:slug/schedule-config', ...admin, validate(scheduleConfigInput), async (req, res) => {
    sendData(res, await eventSettings.setScheduleConfig(actorOf(req), scheduleConfigInput.from(res)));
  });
  return router;
}

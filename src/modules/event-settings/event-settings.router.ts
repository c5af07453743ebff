import { Router } from 'express';
import type { AuthGuards } from '../../middleware/auth.js';
import type { EventSettingsService } from './event-settings.service.js';
import type { ReferenceData } from '../../lib/reference-data.js';
import { sendData } from '../../lib/http.js';
import { actorOf } from '../../middleware/actor.js';
import { input, validate } from '../../middleware/validate.js';
import {
  competitorNumberRules,
  recorderOptOutRules,
  registrationDeadlineRules,
  scheduleConfigBody,
  scheduleConfigParams,
  type CompetitorNumberInput,
  type RecorderOptOutInput,
  type RegistrationDeadlineInput,
  type ScheduleConfigInput,
} from './event-settings.schemas.js';

/** What the router calls (built by src/container.ts). */
export interface EventSettingsRouterDeps {
  guards: AuthGuards;
  eventSettings: EventSettingsService;
  referenceData: ReferenceData;
}

/**
 * Per-event settings: a participant's own (competitor number, recorder opt-out) and the
 * admins' (registration deadline, schedule configuration). Check order: 401 → 403 (admin
 * routes) → validation 400 → event 404 → participation 403 (own settings).
 */
export function createEventSettingsRouter({ guards, eventSettings, referenceData }: EventSettingsRouterDeps): Router {
  const router = Router();
  const admin = [guards.requireAuth, guards.requireAdmin];

  router.put(
    '/events/:slug/competitor-number',
    guards.requireAuth,
    validate(...competitorNumberRules),
    async (req, res) => {
      sendData(res, await eventSettings.setCompetitorNumber(actorOf(req), input<CompetitorNumberInput>(res)));
    },
  );

  router.put(
    '/events/:slug/recorder-opt-out',
    guards.requireAuth,
    validate(...recorderOptOutRules),
    async (req, res) => {
      sendData(res, await eventSettings.setRecorderOptOut(actorOf(req), input<RecorderOptOutInput>(res)));
    },
  );

  router.put(
    '/events/:slug/registration-deadline',
    ...admin,
    validate(...registrationDeadlineRules),
    async (req, res) => {
      sendData(res, await eventSettings.setRegistrationDeadline(actorOf(req), input<RegistrationDeadlineInput>(res)));
    },
  );

  router.put(
    '/events/:slug/schedule-config',
    ...admin,
    validate(...scheduleConfigParams),
    scheduleConfigBody(referenceData),
    async (req, res) => {
      sendData(res, await eventSettings.setScheduleConfig(actorOf(req), input<ScheduleConfigInput>(res)));
    },
  );
  return router;
}

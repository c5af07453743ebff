import { Router } from 'express';
import type { AuthGuards } from '../../middleware/auth.js';
import type { EventSettingsService } from './event-settings.service.js';
import type { ReferenceData } from '../../lib/reference-data.js';
import { sendData } from '../../lib/http.js';
import { actorOf } from '../../middleware/actor.js';
import { currentUser } from '../../middleware/auth.js';
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
      const { slug, competitorNumber } = input<CompetitorNumberInput>(res);
      sendData(res, await eventSettings.setCompetitorNumber(slug, currentUser(req).id, competitorNumber, actorOf(req)));
    },
  );

  router.put(
    '/events/:slug/recorder-opt-out',
    guards.requireAuth,
    validate(...recorderOptOutRules),
    async (req, res) => {
      const { slug, optOut } = input<RecorderOptOutInput>(res);
      sendData(res, await eventSettings.setRecorderOptOut(slug, currentUser(req).id, optOut, actorOf(req)));
    },
  );

  router.put(
    '/events/:slug/registration-deadline',
    ...admin,
    validate(...registrationDeadlineRules),
    async (req, res) => {
      const { slug, registrationDeadline } = input<RegistrationDeadlineInput>(res);
      sendData(res, await eventSettings.setRegistrationDeadline(slug, registrationDeadline, actorOf(req)));
    },
  );

  router.put(
    '/events/:slug/schedule-config',
    ...admin,
    validate(...scheduleConfigParams),
    scheduleConfigBody(referenceData),
    async (req, res) => {
      const { slug, scheduleConfig } = input<ScheduleConfigInput>(res);
      sendData(res, await eventSettings.setScheduleConfig(slug, scheduleConfig, actorOf(req)));
    },
  );
  return router;
}

import { Router } from 'express';
import type { AuthGuards } from '../../middleware/auth.js';
import { sendData } from '../../lib/http.js';
import { actorOf } from '../../middleware/actor.js';
import { validate } from '../../middleware/validate.js';
import type { MatchingPeopleService } from './matching-people.service.js';
import type { MatchingSettingsService } from './matching-settings.service.js';
import {
  absentInput,
  matchingPeopleEventInput,
  matchingSettingsInput,
  pinInput,
  preferencesInput,
  removeSuggestionInput,
} from './matching-people.schemas.js';

/** What the router calls (built by src/container.ts). */
export interface MatchingPeopleRouterDeps {
  guards: AuthGuards;
  matchingSettings: Pick<
    MatchingSettingsService,
    'getSettings' | 'updateSettings' | 'getPreferences' | 'updatePreferences'
  >;
  matchingPeople: Pick<MatchingPeopleService, 'pin' | 'remove' | 'markAbsent' | 'clearAbsent'>;
}

/**
 * Fair matching for people: matching settings (admins write, participants read), the
 * caller's recording preferences, and the admins' pins, removals and no-show marks.
 * Check orders are those of docs/fair-matching.md (401 → 403 admin → 400 → 404 ...).
 */
export function createMatchingPeopleRouter({
  guards,
  matchingSettings,
  matchingPeople,
}: MatchingPeopleRouterDeps): Router {
  const router = Router();
  const admin = [guards.requireAuth, guards.requireAdmin];

  router.get(
    '/events/:slug/matching-settings',
    guards.requireAuth,
    validate(matchingPeopleEventInput),
    async (req, res) => {
      sendData(res, await matchingSettings.getSettings(actorOf(req), matchingPeopleEventInput.from(res)));
    },
  );
  router.put('/events/:slug/matching-settings', ...admin, validate(matchingSettingsInput), async (req, res) => {
    sendData(res, await matchingSettings.updateSettings(actorOf(req), matchingSettingsInput.from(res)));
  });

  router.get(
    '/events/:slug/recording-preferences',
    guards.requireAuth,
    validate(matchingPeopleEventInput),
    async (req, res) => {
      sendData(res, await matchingSettings.getPreferences(actorOf(req), matchingPeopleEventInput.from(res)));
    },
  );
  router.put(
    '/events/:slug/recording-preferences',
    guards.requireAuth,
    validate(preferencesInput),
    async (req, res) => {
      sendData(res, await matchingSettings.updatePreferences(actorOf(req), preferencesInput.from(res)));
    },
  );

  router.post('/admin/events/:slug/match-suggestions', ...admin, validate(pinInput), async (req, res) => {
    sendData(res, await matchingPeople.pin(actorOf(req), pinInput.from(res)), 201);
  });
  router.delete(
    '/admin/events/:slug/match-suggestions/:id',
    ...admin,
    validate(removeSuggestionInput),
    async (req, res) => {
      sendData(res, await matchingPeople.remove(actorOf(req), removeSuggestionInput.from(res)));
    },
  );

  router.post('/admin/events/:slug/participants/:userId/absent', ...admin, validate(absentInput), async (req, res) => {
    sendData(res, await matchingPeople.markAbsent(actorOf(req), absentInput.from(res)));
  });
  router.delete(
    '/admin/events/:slug/participants/:userId/absent',
    ...admin,
    validate(absentInput),
    async (req, res) => {
      sendData(res, await matchingPeople.clearAbsent(actorOf(req), absentInput.from(res)));
    },
  );
  return router;
}

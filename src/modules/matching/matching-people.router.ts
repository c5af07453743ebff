import { Router, type Request, type Response } from 'express';
import type { MatchingPeopleService } from './matching-people.service.js';
import type { AuthGuards } from '../../middleware/auth.js';
import type { ReferenceData } from '../../lib/reference-data.js';
import { sendData } from '../../lib/http.js';
import { actorOf } from '../../middleware/actor.js';
import { currentUser } from '../../middleware/auth.js';
import { validationFailed } from '../../lib/errors.js';
import { isPositiveInt32 } from '../../middleware/validators.js';
import { parseMatchingSettings, parsePreferences } from './matching-people.schemas.js';

const slugOf = (req: Request) => String(req.params.slug);
/** A path id that cannot exist (not a positive int32) → null: the service answers 404 after its earlier checks. */
const idOrNull = (v: unknown) =>
  typeof v === 'string' && /^[1-9]\d{0,9}$/.test(v) && isPositiveInt32(Number(v)) ? Number(v) : null;

/**
 * Fair matching for people: matching settings (admins write, participants read), the
 * caller's recording preferences, and the admins' pins, removals and no-show marks.
 * Check orders are those of docs/fair-matching.md (401 → 403 admin → 400 → 404 ...).
 */
export function createMatchingPeopleRouter({
  guards,
  matchingPeople,
  referenceData,
}: {
  guards: AuthGuards;
  matchingPeople: MatchingPeopleService;
  referenceData: ReferenceData;
}): Router {
  const router = Router();
  const admin = [guards.requireAuth, guards.requireAdmin];

  router.get('/events/:slug/matching-settings', guards.requireAuth, async (req, res) => {
    sendData(res, await matchingPeople.getSettings(actorOf(req), { slug: slugOf(req), user: currentUser(req) }));
  });
  router.put('/events/:slug/matching-settings', ...admin, async (req, res) => {
    const changes = parseMatchingSettings(req.body);
    sendData(res, await matchingPeople.updateSettings(actorOf(req), { slug: slugOf(req), changes }));
  });

  router.get('/events/:slug/recording-preferences', guards.requireAuth, async (req, res) => {
    sendData(
      res,
      await matchingPeople.getPreferences(actorOf(req), { slug: slugOf(req), userId: currentUser(req).id }),
    );
  });
  router.put('/events/:slug/recording-preferences', guards.requireAuth, async (req, res) => {
    const [divisions, competitionTypes] = await Promise.all([
      referenceData.divisionIds(),
      referenceData.competitionTypeIds(),
    ]);
    const changes = parsePreferences(req.body, { divisions, competitionTypes });
    sendData(
      res,
      await matchingPeople.updatePreferences(actorOf(req), { slug: slugOf(req), userId: currentUser(req).id, changes }),
    );
  });

  router.post('/admin/events/:slug/match-suggestions', ...admin, async (req, res) => {
    const b = (req.body ?? {}) as Record<string, unknown>;
    const details = (['heatId', 'recorderId'] as const)
      .filter((f) => !isPositiveInt32(b[f]))
      .map((field) => ({ field, message: `${field} must be a positive integer` }));
    if (details.length) throw validationFailed(details);
    const view = await matchingPeople.pin(actorOf(req), {
      slug: slugOf(req),
      heatId: b.heatId as number,
      recorderId: b.recorderId as number,
    });
    sendData(res, view, 201);
  });
  router.delete('/admin/events/:slug/match-suggestions/:id', ...admin, async (req, res) => {
    sendData(
      res,
      await matchingPeople.remove(actorOf(req), { slug: slugOf(req), suggestionId: idOrNull(req.params.id) }),
    );
  });

  const absentRoute = (mark: boolean) => async (req: Request, res: Response) => {
    const userId = idOrNull(req.params.userId);
    if (userId === null) throw validationFailed([{ field: 'userId', message: 'userId must be a positive integer' }]);
    const input = { slug: slugOf(req), userId };
    sendData(
      res,
      mark
        ? await matchingPeople.markAbsent(actorOf(req), input)
        : await matchingPeople.clearAbsent(actorOf(req), input),
    );
  };
  router.post('/admin/events/:slug/participants/:userId/absent', ...admin, absentRoute(true));
  router.delete('/admin/events/:slug/participants/:userId/absent', ...admin, absentRoute(false));
  return router;
}

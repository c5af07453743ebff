import { Router, type Request, type Response } from 'express';
import type { AuthGuards } from '../../middleware/auth.js';
import type { CachedRead } from '../../middleware/cached-read.js';
import type { MatchingRunsService } from './matching-runs.service.js';
import type { MatchingRunReportsService } from './matching-run-reports.service.js';
import type { SuggestionsService } from './suggestions.service.js';
import { sendCsv, sendData, sendList } from '../../lib/http.js';
import { actorOf } from '../../middleware/actor.js';
import { validate } from '../../middleware/validate.js';
import { decisionInput, eventInput, runInput, runRequestInput } from './matching.schemas.js';

/** What the router calls (built by src/container.ts). */
export interface MatchingRouterDeps {
  guards: AuthGuards;
  cachedRead: CachedRead;
  matching: MatchingRunsService;
  matchingReports: MatchingRunReportsService;
  suggestions: SuggestionsService;
}

/** Every table the caller's suggestions read (suggestions.service.ts, matching.views.ts suggestionsJson). */
const MY_SUGGESTIONS_TABLES = [
  'Event',
  'EventParticipant',
  'RecordingSuggestion',
  'Heat',
  'Division',
  'CompetitionType',
  'User',
];

/** Recording-partner matching: runs (admins), the suggestions, the recorders' answers. */
export function createMatchingRouter({
  guards,
  cachedRead,
  matching,
  matchingReports,
  suggestions,
}: MatchingRouterDeps): Router {
  const router = Router();
  const admin = [guards.requireAuth, guards.requireAdmin];

  const runOrPreview = async (req: Request, res: Response) => {
    const { slug, dryRun } = runRequestInput.from(res);
    if (dryRun) return sendData(res, await matching.preview(actorOf(req), { slug }));
    sendData(res, await matching.runNow(actorOf(req), { slug }), 201);
  };
  router.post('/events/:slug/run-matching', ...admin, validate(runRequestInput), runOrPreview);
  router.post('/admin/events/:slug/matching-runs', ...admin, validate(runRequestInput), runOrPreview);

  router.get(
    '/events/:slug/match-suggestions',
    guards.requireAuth,
    validate(eventInput),
    cachedRead(MY_SUGGESTIONS_TABLES),
    async (req, res) => {
      sendData(res, await suggestions.listMine(actorOf(req), eventInput.from(res)));
    },
  );

  router.put(
    '/events/:slug/match-suggestions/:id/status',
    guards.requireAuth,
    validate(decisionInput),
    async (req, res) => {
      sendData(res, await suggestions.decide(actorOf(req), decisionInput.from(res)));
    },
  );

  router.get('/admin/events/:slug/matching-runs', ...admin, validate(eventInput), async (req, res) => {
    sendList(res, await matchingReports.listRuns(actorOf(req), eventInput.from(res)));
  });

  router.get('/admin/events/:slug/matching-runs/:runId', ...admin, validate(runInput), async (req, res) => {
    sendData(res, await matchingReports.getRun(actorOf(req), runInput.from(res)));
  });

  router.get('/admin/events/:slug/matching-runs/:runId/export.csv', ...admin, validate(runInput), async (req, res) => {
    await sendCsv(res, await matchingReports.exportPlan(actorOf(req), runInput.from(res)));
  });

  router.get('/admin/events/:slug/matching-runs/:runId/suggestions', ...admin, validate(runInput), async (req, res) => {
    sendList(res, await matchingReports.listRunSuggestions(actorOf(req), runInput.from(res)));
  });
  return router;
}

import { Router, type Request, type Response } from 'express';
import type { AuthGuards } from '../../middleware/auth.js';
import type { CachedRead } from '../../middleware/cached-read.js';
import type { MatchingService } from './matching.service.js';
import { sendCsv, sendData, sendList } from '../../lib/http.js';
import { actorOf } from '../../middleware/actor.js';
import { currentUser } from '../../middleware/auth.js';
import { input, validate } from '../../middleware/validate.js';
import {
  decisionSchema,
  eventParams,
  runParams,
  runRequestSchema,
  type DecisionInput,
  type EventParams,
  type RunParams,
  type RunRequest,
} from './matching.schemas.js';

/** What the router calls (built by src/container.ts). */
export interface MatchingRouterDeps {
  guards: AuthGuards;
  cachedRead: CachedRead;
  matching: MatchingService;
}

/** Every table the caller's suggestions read (matching.service.ts, mySuggestions; matching.views.ts, suggestionsJson). */
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
export function createMatchingRouter({ guards, cachedRead, matching }: MatchingRouterDeps): Router {
  const router = Router();
  const admin = [guards.requireAuth, guards.requireAdmin];

  const runOrPreview = async (req: Request, res: Response) => {
    const { slug, dryRun } = input<RunRequest>(res);
    if (dryRun) return sendData(res, await matching.preview(slug, actorOf(req)));
    sendData(res, await matching.runNow(slug, actorOf(req)), 201);
  };
  router.post('/events/:slug/run-matching', ...admin, validate(...runRequestSchema), runOrPreview);
  router.post('/admin/events/:slug/matching-runs', ...admin, validate(...runRequestSchema), runOrPreview);

  router.get(
    '/events/:slug/match-suggestions',
    guards.requireAuth,
    validate(...eventParams),
    cachedRead(MY_SUGGESTIONS_TABLES),
    async (req, res) => {
      sendData(res, await matching.listMine(input<EventParams>(res).slug, currentUser(req).id));
    },
  );

  router.put(
    '/events/:slug/match-suggestions/:id/status',
    guards.requireAuth,
    validate(...decisionSchema),
    async (req, res) => {
      const { slug, id, status } = input<DecisionInput>(res);
      sendData(res, await matching.decide(slug, id, status, currentUser(req), actorOf(req)));
    },
  );

  router.get('/admin/events/:slug/matching-runs', ...admin, validate(...eventParams), async (_req, res) => {
    sendList(res, await matching.listRuns(input<EventParams>(res).slug));
  });

  router.get('/admin/events/:slug/matching-runs/:runId', ...admin, validate(...runParams), async (_req, res) => {
    const { slug, runId } = input<RunParams>(res);
    sendData(res, await matching.getRun(slug, runId));
  });

  router.get(
    '/admin/events/:slug/matching-runs/:runId/export.csv',
    ...admin,
    validate(...runParams),
    async (req, res) => {
      const { slug, runId } = input<RunParams>(res);
      await sendCsv(res, await matching.exportPlan(slug, runId, actorOf(req)));
    },
  );

  router.get(
    '/admin/events/:slug/matching-runs/:runId/suggestions',
    ...admin,
    validate(...runParams),
    async (_req, res) => {
      const { slug, runId } = input<RunParams>(res);
      sendList(res, await matching.listRunSuggestions(slug, runId));
    },
  );
  return router;
}

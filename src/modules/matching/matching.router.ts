import { INT32_MAX } from '../../middleware/validators.js';
import { Router, type Request } from 'express';
import { AppError } from '../../lib/errors.js';
import { sendData, sendList } from '../../lib/http.js';
import { currentUser, requireAdmin, requireAuth } from '../../middleware/auth.js';
import { validate } from '../../middleware/validate.js';
import { getEventBySlug } from '../events/event-access.js';
import { decideSuggestion, listMySuggestions, listRuns, listRunSuggestions, MatchingMessages, runMatchingNow } from './matching.service.js';
import { decisionBody } from './matching.validators.js';

export const matchingRouter = Router();

const param = (req: Request, name: string) => String(req.params[name]);

async function runNow(req: Request) {
  const event = await getEventBySlug(param(req, 'slug'));
  const user = currentUser(req);
  return runMatchingNow(event, 'manual', { userId: user.id, username: user.username, req });
}

matchingRouter.post('/events/:slug/run-matching', requireAuth, requireAdmin, async (req, res) => {
  sendData(res, await runNow(req), 201);
});

matchingRouter.get('/events/:slug/match-suggestions', requireAuth, async (req, res) => {
  const event = await getEventBySlug(param(req, 'slug'));
  sendData(res, await listMySuggestions(event, currentUser(req).id));
});

matchingRouter.put('/events/:slug/match-suggestions/:id/status', requireAuth, validate(decisionBody), async (req, res) => {
  const event = await getEventBySlug(param(req, 'slug'));
  const id = /^[1-9]\d{0,9}$/.test(param(req, 'id')) ? Number(param(req, 'id')) : NaN;
  if (!Number.isSafeInteger(id) || id > INT32_MAX) throw new AppError('SUGGESTION_NOT_FOUND');
  sendData(res, await decideSuggestion(event, id, currentUser(req).id, req.body.status, req));
});

matchingRouter.get('/admin/events/:slug/matching-runs', requireAuth, requireAdmin, async (req, res) => {
  const event = await getEventBySlug(param(req, 'slug'));
  sendList(res, await listRuns(event));
});

matchingRouter.post('/admin/events/:slug/matching-runs', requireAuth, requireAdmin, async (req, res) => {
  sendData(res, await runNow(req), 201);
});

matchingRouter.get('/admin/events/:slug/matching-runs/:runId/suggestions', requireAuth, requireAdmin, async (req, res) => {
  const event = await getEventBySlug(param(req, 'slug'));
  sendList(res, await listRunSuggestions(event, param(req, 'runId')));
});

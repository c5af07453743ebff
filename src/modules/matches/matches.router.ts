import { Router } from 'express';
import { sendData, sendList, sendMessage } from '../../lib/http.js';
import { currentUser, requireAuth, requireVerifiedEmail } from '../../middleware/auth.js';
import { validate } from '../../middleware/validate.js';
import {
  acceptMatch,
  createMatch,
  deleteMatch,
  getMatch,
  listMatches,
  listMatchMessages,
  rateMatch,
  type MatchStatus,
} from './matches.service.js';
import { messagesPage, messagesQuery } from '../chat/chat.validators.js';
import { createMatchRules, listMatchesRules, ratingRules } from './matches.validators.js';

export const matchesRouter = Router();

matchesRouter.post('/matches', requireAuth, requireVerifiedEmail, validate(...createMatchRules), async (req, res) => {
  const match = await createMatch(currentUser(req), { targetUserId: req.body.targetUserId, eventSlug: req.body.eventSlug }, req);
  sendData(res, match, 201);
});

matchesRouter.get('/matches', requireAuth, validate(...listMatchesRules), async (req, res) => {
  const matches = await listMatches(currentUser(req).id, {
    eventSlug: req.query.eventSlug as string | undefined,
    status: req.query.status as MatchStatus | undefined,
  });
  sendList(res, matches);
});

matchesRouter.get('/matches/:slug', requireAuth, async (req, res) => {
  sendData(res, await getMatch(String(req.params.slug), currentUser(req).id));
});

matchesRouter.put('/matches/:slug/accept', requireAuth, requireVerifiedEmail, async (req, res) => {
  sendData(res, await acceptMatch(String(req.params.slug), currentUser(req), req));
});

matchesRouter.delete('/matches/:slug', requireAuth, async (req, res) => {
  const { action } = await deleteMatch(String(req.params.slug), currentUser(req), req);
  sendMessage(res, action === 'rejected' ? 'Match rejected' : 'Match cancelled');
});

matchesRouter.get('/matches/:slug/messages', requireAuth, validate(...messagesQuery), async (req, res) => {
  const page = await listMatchMessages(String(req.params.slug), currentUser(req).id, messagesPage(req));
  res.json({ success: true, count: page.messages.length, data: page.messages, hasMore: page.hasMore });
});

matchesRouter.post('/matches/:slug/ratings', requireAuth, requireVerifiedEmail, validate(...ratingRules), async (req, res) => {
  const rating = await rateMatch(
    String(req.params.slug),
    currentUser(req),
    { score: req.body.score, comment: req.body.comment, wouldCollaborateAgain: req.body.wouldCollaborateAgain },
    req,
  );
  sendData(res, rating, 201);
});

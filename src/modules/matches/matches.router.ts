import { Router } from 'express';
import type { AuthGuards } from '../../middleware/auth.js';
import type { CachedRead } from '../../middleware/cached-read.js';
import type { MatchesService } from './matches.service.js';
import { sendData, sendList, sendMessage } from '../../lib/http.js';
import { actorOf } from '../../middleware/actor.js';
import { currentUser } from '../../middleware/auth.js';
import { input, validate } from '../../middleware/validate.js';
import {
  createMatchRules,
  listMatchesRules,
  matchMessagesRules,
  matchSlugParams,
  ratingRules,
  type CreateMatchBody,
  type ListMatchesQuery,
  type MatchMessagesInput,
  type MatchSlugInput,
  type RatingInput,
} from './matches.schemas.js';

/** What the router calls (built by src/container.ts). */
export interface MatchesRouterDeps {
  guards: AuthGuards;
  cachedRead: CachedRead;
  matches: MatchesService;
}

/** Every table the match list reads (matches.service.ts, matchList). */
const MATCH_LIST_TABLES = ['Event', 'Match', 'User', 'ChatRoom', 'VideoTransfer'];

/** Match requests between participants, their ratings and the private chat history. */
export function createMatchesRouter({ guards, cachedRead, matches }: MatchesRouterDeps): Router {
  const router = Router();
  const verified = [guards.requireAuth, guards.requireVerifiedEmail];

  router.post('/matches', ...verified, validate(...createMatchRules), async (req, res) => {
    sendData(res, await matches.createMatch(currentUser(req), input<CreateMatchBody>(res), actorOf(req)), 201);
  });

  router.get(
    '/matches',
    guards.requireAuth,
    validate(...listMatchesRules),
    cachedRead(MATCH_LIST_TABLES),
    async (req, res) => {
      sendList(res, await matches.listMatches(currentUser(req).id, input<ListMatchesQuery>(res)));
    },
  );

  router.get('/matches/:slug', guards.requireAuth, validate(...matchSlugParams), async (req, res) => {
    sendData(res, await matches.getMatch(input<MatchSlugInput>(res).slug, currentUser(req).id));
  });

  router.put('/matches/:slug/accept', ...verified, validate(...matchSlugParams), async (req, res) => {
    sendData(res, await matches.acceptMatch(input<MatchSlugInput>(res).slug, currentUser(req), actorOf(req)));
  });

  router.delete('/matches/:slug', guards.requireAuth, validate(...matchSlugParams), async (req, res) => {
    const { action } = await matches.deleteMatch(input<MatchSlugInput>(res).slug, currentUser(req), actorOf(req));
    sendMessage(res, action === 'rejected' ? 'Match rejected' : 'Match cancelled');
  });

  router.get('/matches/:slug/messages', guards.requireAuth, validate(...matchMessagesRules), async (req, res) => {
    const { slug, before, limit } = input<MatchMessagesInput>(res);
    const page = await matches.listMatchMessages(slug, currentUser(req).id, { before, limit });
    sendList(res, page.messages, { hasMore: page.hasMore });
  });

  router.post('/matches/:slug/ratings', ...verified, validate(...ratingRules), async (req, res) => {
    const { slug, ...rating } = input<RatingInput>(res);
    sendData(res, await matches.rateMatch(slug, currentUser(req), rating, actorOf(req)), 201);
  });
  return router;
}

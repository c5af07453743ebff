import { Router } from 'express';
import type { AuthGuards } from '../../middleware/auth.js';
import type { CachedRead } from '../../middleware/cached-read.js';
import type { MatchesService } from './matches.service.js';
import type { MatchRequestsService } from './match-requests.service.js';
import type { MatchRatingsService } from './match-ratings.service.js';
import type { PrivateChatService } from './private-chat.service.js';
import { sendData, sendList, sendMessage } from '../../lib/http.js';
import { actorOf } from '../../middleware/actor.js';
import { validate } from '../../middleware/validate.js';
import {
  createMatchInput,
  listMatchesInput,
  matchMessagesInput,
  matchSlugInput,
  rateMatchInput,
} from './matches.schemas.js';

/** What the router calls (built by src/container.ts). */
export interface MatchesRouterDeps {
  guards: AuthGuards;
  cachedRead: CachedRead;
  matches: Pick<MatchesService, 'listMatches' | 'getMatch' | 'deleteMatch'>;
  matchRequests: Pick<MatchRequestsService, 'createMatch' | 'acceptMatch'>;
  ratings: MatchRatingsService;
  privateChat: PrivateChatService;
}

/** Every table the match list reads (matches.service.ts, matchList). */
const MATCH_LIST_TABLES = ['Event', 'Match', 'User', 'ChatRoom', 'VideoTransfer'];

/** Match requests between participants, their ratings and the private chat history. */
export function createMatchesRouter({
  guards,
  cachedRead,
  matches,
  matchRequests,
  ratings,
  privateChat,
}: MatchesRouterDeps): Router {
  const router = Router();
  const verified = [guards.requireAuth, guards.requireVerifiedEmail];

  router.post('/matches', ...verified, validate(createMatchInput), async (req, res) => {
    sendData(res, await matchRequests.createMatch(actorOf(req), createMatchInput.from(res)), 201);
  });

  router.get(
    '/matches',
    guards.requireAuth,
    validate(listMatchesInput),
    cachedRead(MATCH_LIST_TABLES),
    async (req, res) => {
      sendList(res, await matches.listMatches(actorOf(req), listMatchesInput.from(res)));
    },
  );

  router.get('/matches/:slug', guards.requireAuth, validate(matchSlugInput), async (req, res) => {
    sendData(res, await matches.getMatch(actorOf(req), matchSlugInput.from(res)));
  });

  router.put('/matches/:slug/accept', ...verified, validate(matchSlugInput), async (req, res) => {
    sendData(res, await matchRequests.acceptMatch(actorOf(req), matchSlugInput.from(res)));
  });

  router.delete('/matches/:slug', guards.requireAuth, validate(matchSlugInput), async (req, res) => {
    const { action } = await matches.deleteMatch(actorOf(req), matchSlugInput.from(res));
    sendMessage(res, action === 'rejected' ? 'Match rejected' : 'Match cancelled');
  });

  router.get('/matches/:slug/messages', guards.requireAuth, validate(matchMessagesInput), async (req, res) => {
    const page = await privateChat.listMessages(actorOf(req), matchMessagesInput.from(res));
    sendList(res, page.messages, { hasMore: page.hasMore });
  });

  router.post('/matches/:slug/ratings', ...verified, validate(rateMatchInput), async (req, res) => {
    sendData(res, await ratings.rate(actorOf(req), rateMatchInput.from(res)), 201);
  });
  return router;
}

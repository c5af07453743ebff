import { Router } from 'express';
import type { AuthGuards } from '../../middleware/auth.js';
import type { EventChatService } from './event-chat.service.js';
import { sendPage } from '../../lib/http.js';
import { actorOf } from '../../middleware/actor.js';
import { validate } from '../../middleware/validate.js';
import { eventMessagesInput } from './chat.schemas.js';

/** What the router calls (built by src/container.ts). */
export interface ChatRouterDeps {
  guards: AuthGuards;
  eventChat: EventChatService;
}

/** History of the event group chat, `{ success, data, hasMore }` (chat.openapi.ts). */
export function createChatRouter({ guards, eventChat }: ChatRouterDeps): Router {
  const router = Router();
  router.get('/events/:slug/messages', guards.requireAuth, validate(eventMessagesInput), async (req, res) => {
    const history = await eventChat.listMessages(actorOf(req), eventMessagesInput.from(res));
    sendPage(res, history.messages, history.hasMore);
  });
  return router;
}

import { Router } from 'express';
import type { AuthGuards } from '../../middleware/auth.js';
import type { CachedRead } from '../../middleware/cached-read.js';
import type { EventRoomService } from './event-room.service.js';
import { sendPage } from '../../lib/http.js';
import { actorOf } from '../../middleware/actor.js';
import { validate } from '../../middleware/validate.js';
import { eventMessagesInput } from './chat.schemas.js';

/** What the router calls (built by src/container.ts). */
export interface ChatRouterDeps {
  guards: AuthGuards;
  cachedRead: CachedRead;
  eventRoom: Pick<EventRoomService, 'listMessages'>;
}

/** Every table the history statement reads (event-room.service.ts, roomPage): authors, blocks, removals. */
const HISTORY_TABLES = ['Event', 'EventParticipant', 'ChatRoom', 'Message', 'UserBlock', 'User'];

/** History of the event group chat, `{ success, data, hasMore }` (chat.openapi.ts). */
export function createChatRouter({ guards, cachedRead, eventRoom }: ChatRouterDeps): Router {
  const router = Router();
  router.get(
    '/events/:slug/messages',
    guards.requireAuth,
    validate(eventMessagesInput),
    cachedRead(HISTORY_TABLES),
    async (req, res) => {
      const history = await eventRoom.listMessages(actorOf(req), eventMessagesInput.from(res));
      sendPage(res, history.messages, history.hasMore);
    },
  );
  return router;
}

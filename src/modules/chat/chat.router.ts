import { Router } from 'express';
import { currentUser, requireAuth } from '../../middleware/auth.js';
import { validate } from '../../middleware/validate.js';
import { messagesPage, messagesQuery } from './chat.validators.js';
import { listEventMessages } from './event-chat.service.js';

export const chatRouter = Router();

/** History of the event group chat; SPEC.md shape `{ success, data, hasMore }`. */
chatRouter.get(
  '/events/:slug/messages',
  requireAuth,
  validate(...messagesQuery),
  async (req, res) => {
    const page = await listEventMessages(String(req.params.slug), currentUser(req).id, messagesPage(req));
    res.json({ success: true, data: page.messages, hasMore: page.hasMore });
  },
);

// ---- transitional (issue 11): the private chat of matches still imports these; use chat.schemas.ts
import type { Request } from 'express';
import type { MessagePage } from './chat.service.js';

export { messagesQuery } from './chat.schemas.js';

/**
 * @deprecated transitional: routers read the validated page with input<MessagesQuery>(res).
 * Express 5 re-parses req.query on every read, so the validators' toInt() does not stick there.
 */
export function messagesPage(req: Request): MessagePage {
  const { before, limit } = req.query as { before?: string; limit?: string };
  return {
    before: before === undefined ? undefined : Number(before),
    limit: limit === undefined ? undefined : Number(limit),
  };
}

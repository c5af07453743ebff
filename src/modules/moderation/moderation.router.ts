import { Router } from 'express';
import { sendData, sendList, sendMessage } from '../../lib/http.js';
import { actorOf } from '../../middleware/actor.js';
import type { AuthGuards } from '../../middleware/auth.js';
import { validate } from '../../middleware/validate.js';
import type { BlocksService } from './blocks.service.js';
import type { ModerationService } from './moderation.service.js';
import {
  closeReportInput,
  createReportInput,
  listReportsInput,
  messageIdInput,
  suspendInput,
  usernameInput,
} from './moderation.schemas.js';
import type { ReportsService } from './reports.service.js';

export interface ModerationRouterDeps {
  guards: AuthGuards;
  blocks: BlocksService;
  reports: ReportsService;
  moderation: ModerationService;
}

/** Blocks and reports (any signed-in user; no verified e-mail needed) and the admins' moderation routes. */
export function createModerationRouter({ guards, blocks, reports, moderation }: ModerationRouterDeps): Router {
  const router = Router();
  const admin = [guards.requireAuth, guards.requireAdmin];

  router.get('/users/me/blocks', guards.requireAuth, async (req, res) => {
    sendList(res, await blocks.list(actorOf(req)));
  });

  router.post('/users/:username/block', guards.requireAuth, validate(usernameInput), async (req, res) => {
    const { created, block } = await blocks.block(actorOf(req), usernameInput.from(res));
    sendData(res, block, created ? 201 : 200);
  });

  router.delete('/users/:username/block', guards.requireAuth, validate(usernameInput), async (req, res) => {
    await blocks.unblock(actorOf(req), usernameInput.from(res));
    sendMessage(res, 'User unblocked');
  });

  router.post('/reports', guards.requireAuth, validate(createReportInput), async (req, res) => {
    sendData(res, await reports.create(actorOf(req), createReportInput.from(res)), 201);
  });

  router.get('/admin/reports', ...admin, validate(listReportsInput), async (req, res) => {
    const { items, pagination } = await reports.list(actorOf(req), listReportsInput.from(res));
    sendList(res, items, { pagination });
  });

  router.patch('/admin/reports/:id', ...admin, validate(closeReportInput), async (req, res) => {
    sendData(res, await reports.close(actorOf(req), closeReportInput.from(res)));
  });

  router.post('/admin/users/:username/suspend', ...admin, validate(suspendInput), async (req, res) => {
    sendData(res, await moderation.suspend(actorOf(req), suspendInput.from(res)));
  });

  router.delete('/admin/users/:username/suspend', ...admin, validate(usernameInput), async (req, res) => {
    sendData(res, await moderation.unsuspend(actorOf(req), usernameInput.from(res)));
  });

  router.delete('/admin/messages/:id', ...admin, validate(messageIdInput), async (req, res) => {
    await moderation.deleteMessage(actorOf(req), messageIdInput.from(res));
    sendMessage(res, 'Message deleted');
  });
  return router;
}

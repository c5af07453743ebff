import { Router } from 'express';
import { sendData, sendList, sendMessage } from '../../lib/http.js';
import { actorOf } from '../../middleware/actor.js';
import type { AuthGuards } from '../../middleware/auth.js';
import { input, validate } from '../../middleware/validate.js';
import type { BlocksService } from './blocks.service.js';
import type { ModerationService } from './moderation.service.js';
import {
  createReportBody,
  listReportsQuery,
  messageIdParam,
  reportIdParam,
  suspendBody,
  updateReportBody,
  usernameParam,
  type CreateReportInput,
  type IdParam,
  type ListReportsQuery,
  type SuspendInput,
  type UpdateReportInput,
  type UsernameParam,
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

  router.post('/users/:username/block', guards.requireAuth, validate(...usernameParam), async (req, res) => {
    const { created, block } = await blocks.block(actorOf(req), input<UsernameParam>(res));
    sendData(res, block, created ? 201 : 200);
  });

  router.delete('/users/:username/block', guards.requireAuth, validate(...usernameParam), async (req, res) => {
    await blocks.unblock(actorOf(req), input<UsernameParam>(res));
    sendMessage(res, 'User unblocked');
  });

  router.post('/reports', guards.requireAuth, validate(...createReportBody), async (req, res) => {
    sendData(res, await reports.create(actorOf(req), input<CreateReportInput>(res)), 201);
  });

  router.get('/admin/reports', ...admin, validate(...listReportsQuery), async (req, res) => {
    const { items, pagination } = await reports.list(actorOf(req), input<ListReportsQuery>(res));
    sendList(res, items, { pagination });
  });

  router.patch('/admin/reports/:id', ...admin, validate(...reportIdParam, ...updateReportBody), async (req, res) => {
    sendData(res, await reports.close(actorOf(req), input<IdParam & UpdateReportInput>(res)));
  });

  router.post(
    '/admin/users/:username/suspend',
    ...admin,
    validate(...usernameParam, ...suspendBody),
    async (req, res) => {
      sendData(res, await moderation.suspend(actorOf(req), input<UsernameParam & SuspendInput>(res)));
    },
  );

  router.delete('/admin/users/:username/suspend', ...admin, validate(...usernameParam), async (req, res) => {
    sendData(res, await moderation.unsuspend(actorOf(req), input<UsernameParam>(res)));
  });

  router.delete('/admin/messages/:id', ...admin, validate(...messageIdParam), async (req, res) => {
    await moderation.deleteMessage(actorOf(req), input<IdParam>(res));
    sendMessage(res, 'Message deleted');
  });
  return router;
}

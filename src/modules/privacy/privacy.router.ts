import { Router, type RequestHandler } from 'express';
import type { AuthGuards } from '../../middleware/auth.js';
import type { AccountDeletionService } from './account-deletion.service.js';
import type { DataExportService } from './data-export.service.js';
import type { IpRetentionService } from './ip-retention.service.js';
import { sendConfirmation, sendData } from '../../lib/http.js';
import { actorOf } from '../../middleware/actor.js';
import { validate } from '../../middleware/validate.js';
import { exportFilename } from './data-export.service.js';
import { adminDeleteUserInput, deleteAccountInput } from './privacy.schemas.js';

/** What the router calls (built by src/container.ts). */
export interface PrivacyRouterDeps {
  guards: AuthGuards;
  exportLimiter: RequestHandler;
  dataExport: DataExportService;
  accountDeletion: AccountDeletionService;
  ipRetention: IpRetentionService;
}

/** Privacy and data rights (docs/privacy.md): export, account deletion, the retention settings. */
export function createPrivacyRouter({
  guards,
  exportLimiter,
  dataExport,
  accountDeletion,
  ipRetention,
}: PrivacyRouterDeps): Router {
  const router = Router();
  const admin = [guards.requireAuth, guards.requireAdmin];

  router.get('/users/me/export', guards.requireAuth, exportLimiter, async (req, res) => {
    const data = await dataExport.exportFor(actorOf(req));
    // quoted as the contract writes it (usernames hold only letters, digits and _)
    res.set('Content-Disposition', `attachment; filename="${exportFilename(data.user.username, data.exportedAt)}"`);
    res.type('application/json; charset=utf-8').set('Cache-Control', 'private, no-store');
    sendData(res, data);
  });

  router.delete('/users/me', guards.requireAuth, validate(deleteAccountInput), async (req, res) => {
    await accountDeletion.deleteOwnAccount(actorOf(req), deleteAccountInput.from(res));
    sendConfirmation(res, 'Account deleted');
  });

  router.delete('/admin/users/:username', ...admin, validate(adminDeleteUserInput), async (req, res) => {
    await accountDeletion.deleteUserAsAdmin(actorOf(req), adminDeleteUserInput.from(res));
    sendConfirmation(res, 'User deleted');
  });

  router.get('/admin/privacy', ...admin, (req, res) => {
    sendData(res, ipRetention.status(actorOf(req)));
  });
  return router;
}

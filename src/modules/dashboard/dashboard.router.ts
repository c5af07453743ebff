import { Router } from 'express';
import { sendData } from '../../lib/http.js';
import { currentUser, requireAuth } from '../../middleware/auth.js';
import { getDashboard } from './dashboard.service.js';

export const dashboardRouter = Router();

dashboardRouter.get('/dashboard', requireAuth, async (req, res) => {
  sendData(res, await getDashboard(currentUser(req).id));
});

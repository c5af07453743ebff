import { Router } from 'express';
import { query } from 'express-validator';
import { sendData } from '../../lib/http.js';
import { emailLimiter } from '../../middleware/rate-limit.js';
import { validate } from '../../middleware/validate.js';
import { lookupDancer } from './registry.service.js';

export const registryRouter = Router();

/** No token (prefills the registration form); rate limited with the e-mail tier. */
registryRouter.get(
  '/registry/lookup',
  emailLimiter,
  validate(query('id').exists().withMessage('id is required').bail().custom((v) => typeof v === 'string').withMessage('id must be 1-10 digits').bail().trim().matches(/^\d{1,10}$/).withMessage('id must be 1-10 digits')),
  async (req, res) => {
    sendData(res, await lookupDancer(String(req.query.id).trim()));
  },
);

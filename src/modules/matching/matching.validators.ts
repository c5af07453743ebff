import { body } from 'express-validator';


export const decisionBody = body('status')
  .isIn(['accepted', 'rejected'])
  .withMessage('Status must be either accepted or rejected');

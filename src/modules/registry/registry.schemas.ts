import { query } from 'express-validator';

export const lookupQuery = [
  query('id')
    .exists()
    .withMessage('id is required')
    .bail()
    .custom((v) => typeof v === 'string')
    .withMessage('id must be 1-10 digits')
    .bail()
    .trim()
    .matches(/^\d{1,10}$/)
    .withMessage('id must be 1-10 digits'),
];

export interface LookupQuery {
  id: string;
}

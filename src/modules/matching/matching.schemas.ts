import { body, param } from 'express-validator';
import { INT32_MAX } from '../../middleware/validators.js';

const slug = param('slug').isString();

/** A suggestion id that cannot exist (not a positive int32) becomes null: the service answers 404 after its earlier checks. */
const suggestionId = param('id').customSanitizer((v: unknown) =>
  typeof v === 'string' && /^[1-9]\d{0,9}$/.test(v) && Number(v) <= INT32_MAX ? Number(v) : null,
);

export const eventParams = [slug];

export const runParams = [slug, param('runId').isString()];

/** POST .../matching-runs: `{ dryRun?: boolean }` (JSON true/false; a missing body runs for real). */
export const runRequestSchema = [
  slug,
  body('dryRun')
    .optional()
    .isBoolean({ strict: true })
    .withMessage('dryRun must be true or false')
    .bail()
    .toBoolean(true),
];

export const decisionSchema = [
  body('status').isIn(['accepted', 'rejected']).withMessage('Status must be either accepted or rejected'),
  slug,
  suggestionId,
];

export interface EventParams {
  slug: string;
}

export interface RunParams extends EventParams {
  runId: string;
}

export interface RunRequest extends EventParams {
  dryRun?: boolean;
}

export type Decision = 'accepted' | 'rejected';

/** `id` null: a malformed suggestion id, answered 404 after the earlier checks. */
export interface DecisionInput extends EventParams {
  id: number | null;
  status: Decision;
}

import { defineInput, f, type InputOf } from '../../middleware/input.js';
import { INT32_MAX } from '../../middleware/validators.js';

/**
 * The inputs of recording-partner matching (runs, suggestions, answers), each declared once
 * (src/middleware/input.ts). Fair matching's (settings, preferences, pins) are in
 * matching-people.schemas.ts.
 */

export const DECISIONS = ['accepted', 'rejected'] as const;
export type Decision = (typeof DECISIONS)[number];

const slug = f.slug();
const runId = f.param({ type: 'string', description: 'run id (UUID; anything else is an unknown run)' });

/** A suggestion id that cannot exist (not a positive int32) becomes null: the service answers 404 after its earlier checks. */
export const suggestionId = f.custom<number | null>(
  {
    type: 'string',
    description: 'suggestion id (a positive integer; anything else is an unknown suggestion, 404)',
  },
  (chain) =>
    chain.customSanitizer((v: unknown) =>
      typeof v === 'string' && /^[1-9]\d{0,9}$/.test(v) && Number(v) <= INT32_MAX ? Number(v) : null,
    ),
);

export const eventInput = defineInput('matchingEvent', { params: { slug } });
export type EventInput = InputOf<typeof eventInput>;

export const runInput = defineInput('matchingRun', { params: { slug, runId } });
export type RunInput = InputOf<typeof runInput>;

/** POST .../matching-runs: `{ dryRun?: boolean }` (JSON true/false; a missing body runs for real). */
export const runRequestInput = defineInput('runMatching', {
  params: { slug },
  body: { dryRun: f.bool().optional().describe('true: a dry run (nothing written)', { default: false }) },
});
export type RunRequestInput = InputOf<typeof runRequestInput>;

/** PUT /events/:slug/match-suggestions/:id/status (`id` null: a malformed id, answered 404). */
export const decisionInput = defineInput('decideSuggestion', {
  params: { slug, id: suggestionId },
  body: {
    status: f.custom<Decision>({ type: 'string', enum: [...DECISIONS] }, (chain) =>
      chain.isIn([...DECISIONS]).withMessage('Status must be either accepted or rejected'),
    ),
  },
});
export type DecisionInput = InputOf<typeof decisionInput>;

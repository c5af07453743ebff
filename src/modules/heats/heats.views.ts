import { defineView, v, type ViewOf } from '../../lib/view.js';

/**
 * The response shapes of heats, declared once (src/lib/view.ts): the heat of heats/me, heats/all,
 * `heats_updated`, the data export and the recording suggestions of matching. The statements that
 * render them in SQL read h (Heat), d (its Division) and ct (its CompetitionType).
 */

/** A division or a competition type (component Reference). */
export const referenceView = defineView(
  'Reference',
  { id: v.int(), name: v.str(), abbreviation: v.str() },
  { alias: 'd' },
);

/** A declared heat with its division and competition type (component Heat). */
export const heatView = defineView(
  'Heat',
  {
    id: v.int(),
    divisionId: v.int(),
    division: v.view(referenceView, 'd'),
    competitionTypeId: v.int(),
    competitionType: v.view(referenceView, 'ct'),
    heatNumber: v.json<number>({ type: 'integer', minimum: 1, maximum: 9 }),
    role: v.json<string | null>({ enum: ['Leader', 'Follower', null] }),
  },
  { alias: 'h' },
);
export type HeatView = ViewOf<typeof heatView>;

/** The views registered as components (src/docs/feature-schemas.ts). */
export const heatsViews = [referenceView, heatView];

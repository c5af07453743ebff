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

/**
 * A participant with heats in GET /events/:slug/heats/all: who, the competitor number, and the
 * heats with it (component HeatWithNumber). Inline in the document (heats.openapi.ts).
 */
export const userHeatsView = defineView(
  'UserHeats',
  {
    userId: v.int(),
    username: v.str(),
    avatar: v.str(),
    competitorNumber: v.nullStr(),
    heats: v.json<(HeatView & { competitorNumber: string | null })[]>({
      type: 'array',
      items: { $ref: '#/components/schemas/HeatWithNumber' },
    }),
  },
  { alias: 'u' },
);
export type UserHeatsView = ViewOf<typeof userHeatsView>;

/** The views registered as components (src/docs/feature-schemas.ts). */
export const heatsViews = [referenceView, heatView];

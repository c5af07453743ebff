import { activityLogViews } from '../modules/activity-log/activity-log.views.js';
import { userSummaryView } from '../lib/user-summary.js';
import { chatViews } from '../modules/chat/chat.views.js';
import { eventsViews } from '../modules/events/events.views.js';
import { heatsViews } from '../modules/heats/heats.views.js';
import { matchesViews } from '../modules/matches/matches.views.js';
import { matchingViews } from '../modules/matching/matching.views.js';
import { usersComponentSchemas } from '../modules/users/users.openapi.js';
import { usersViews } from '../modules/users/users.views.js';
import type { Schema } from './openapi-helpers.js';

/**
 * The schemas the features declare themselves, for the OpenAPI and the AsyncAPI documents alike:
 * the response views declared once (src/lib/view.ts), each under its name, and the components a
 * feature builds from them. A feature adds its `<feature>.views.ts` list here.
 */
const views = [userSummaryView, ...eventsViews, ...usersViews, ...activityLogViews, ...matchesViews, ...chatViews, ...matchingViews, ...heatsViews];

export const featureSchemas: Record<string, Schema> = {
  ...Object.fromEntries(views.map((view) => [view.name, view.schema])),
  ...usersComponentSchemas,
};

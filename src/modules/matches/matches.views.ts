import { userSummaryView } from '../../lib/user-summary.js';
import { defineView, v, type ViewOf } from '../../lib/view.js';
import { eventRefView } from '../events/events.views.js';

/*
 * The views of matches (owned tables: Match, Rating, a match's private ChatRoom). Each is the one
 * declaration of its fields: the row type, the OpenAPI component and the SQL object come from it
 * (src/lib/view.ts).
 */

/** The states of a match (a CHECK of the Match table). */
export const MATCH_STATUSES = ['pending', 'accepted', 'completed'] as const;
export type MatchStatus = (typeof MATCH_STATUSES)[number];

/** How a match came to be. */
export const MATCH_SOURCES = ['manual', 'auto'] as const;
export type MatchSource = (typeof MATCH_SOURCES)[number];

/**
 * A match as its viewer sees it (DECISIONS "Matches"): the matches list, a match, and the
 * dashboard's incoming requests. Its SQL (`matchView.json()`) reads the aliases m (Match),
 * e (its Event), u (the partner: the member who is not the viewer), r (the private ChatRoom,
 * LEFT JOINed) and the viewer's id as $1. The Prisma reads map a match with its relations to it
 * (toMatchView in match-records.ts).
 */
export const matchView = defineView(
  'Match',
  {
    id: v.int().describe('internal id, used only by the real-time events (join_private_room, send_private_message)'),
    slug: v.str().describe('random alphanumeric'),
    status: v.oneOf(MATCH_STATUSES),
    source: v.oneOf(MATCH_SOURCES).describe('auto: created by accepting a recording suggestion'),
    createdAt: v.dateTime(),
    respondedAt: v.nullDateTime().describe('when the match was accepted'),
    event: v.view(eventRefView, 'e'),
    partner: v.view(userSummaryView, 'u'),
    isInitiator: v.bool().sql('(m."user1Id" = $1)'),
    roomId: v.nullInt().sql('r.id').describe('private chat room; null while pending'),
    videosReceived: v
      .int()
      .sql(
        `(SELECT count(*)::int FROM "VideoTransfer" t WHERE t."matchId" = m.id AND t.status = 'completed' AND t."receiverId" = $1)`,
      )
      .describe('completed video hand-offs in this match whose receiver is the caller (see /matches/{slug}/transfers)'),
  },
  { alias: 'm' },
);
export type MatchView = ViewOf<typeof matchView>;

/** GET /matches/:slug: the match view and whether the viewer rated the match already. */
export const matchWithRatedView = defineView(
  'MatchWithRated',
  {
    ...matchView.fields,
    hasRated: v.bool().sql('EXISTS (SELECT 1 FROM "Rating" rt WHERE rt."matchId" = m.id AND rt."raterId" = $1)'),
  },
  { alias: 'm' },
);
export type MatchWithRatedView = ViewOf<typeof matchWithRatedView>;

/** Every view of this feature, registered as OpenAPI components by src/docs/feature-schemas.ts. */
export const matchesViews = [matchView, matchWithRatedView];

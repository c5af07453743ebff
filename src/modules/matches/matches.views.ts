import type { UserSummaryRow } from '../../lib/user-summary.js';

/** The match view (DECISIONS "Matches"): the one declaration of a match object's fields for the matches list, a match, and the dashboard's incoming requests. */
export interface MatchView {
  id: number;
  slug: string;
  status: string;
  source: string;
  createdAt: Date;
  respondedAt: Date | null;
  event: { id: number; slug: string; name: string };
  partner: UserSummaryRow;
  isInitiator: boolean;
  roomId: number | null;
  /** completed video hand-offs in this match received by the viewer */
  videosReceived: number;
  hasRated?: boolean;
}

/**
 * A match object's own fields, its event and the partner's summary, as json_build_object
 * arguments over the aliases m (Match), e (Event) and u (the partner). Each statement adds
 * isInitiator, roomId and videosReceived; the dashboard's incoming requests use it too.
 */
export const MATCH_VIEW_JSON_FIELDS = `'id', m.id, 'slug', m.slug, 'status', m.status, 'source', m.source,
  'createdAt', m."createdAt", 'respondedAt', m."respondedAt",
  'event', json_build_object('id', e.id, 'slug', e.slug, 'name', e.name),
  'partner', json_build_object('id', u.id, 'username', u.username, 'avatar', u.avatar, 'firstName', u."firstName", 'lastName', u."lastName")`;

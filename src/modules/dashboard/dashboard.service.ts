import { userOf, type Actor } from '../../lib/actor.js';
import { sql, toDate, type SqlReader } from '../../lib/sql.js';
import { matchView, type MatchView } from '../matches/matches.views.js';

export interface DashboardEvent {
  id: number;
  slug: string;
  name: string;
  location: string;
  startDate: Date;
  endDate: Date;
  joinedAt: Date;
  /** the caller's heats at this event */
  heatsCount: number;
  /** live recording suggestions (pending or accepted): caller as dancer / as recorder */
  recordingSuggestions: { toBeRecorded: number; toRecord: number };
  /** the caller's accepted (not yet completed) matches at this event */
  activeMatches: number;
  /** videos the caller received from recording partners at this event (completed hand-offs) */
  videosReceived: number;
}

/** A pending match request to the caller: the match object of the matches feature (the caller is never the initiator). */
export type IncomingRequest = MatchView;

export interface Dashboard {
  events: DashboardEvent[];
  incomingRequests: IncomingRequest[];
}

/** Suggestions that still stand: pending or accepted. */
const LIVE_SUGGESTION = `('pending', 'accepted')`;

/**
 * The whole dashboard in one statement ($1 = the caller), as two json arrays:
 * - events: the caller's participations newest first (EventParticipant(userId, eventId)), each
 *   with the caller's heats (Heat(userId, eventId, …)), live suggestions as dancer and as
 *   recorder (RecordingSuggestion(eventId, dancerId) / (eventId, recorderId)), accepted matches
 *   (Match(user1Id, status) / (user2Id, status)) and completed hand-offs received
 *   (VideoTransfer(receiverId, status));
 * - incoming: pending requests to the caller, newest first (Match(user2Id, status)), as the
 *   matches feature's match view (matchView.json(): the event, the requester's summary as the
 *   partner, the room; the caller, $1, is never the initiator, and a pending request has no
 *   room and no hand-offs yet).
 * It reads other features' tables, read only, so that the phones' most frequent poll costs one
 * round trip.
 */
const dashboardStatement = sql(
  'dashboard',
  `SELECT
     (SELECT coalesce(json_agg(json_build_object(
        'id', e.id, 'slug', e.slug, 'name', e.name, 'location', e.location,
        'startDate', e."startDate", 'endDate', e."endDate", 'joinedAt', p."joinedAt",
        'heatsCount', (SELECT count(*) FROM "Heat" h WHERE h."userId" = $1 AND h."eventId" = e.id),
        'recordingSuggestions', json_build_object(
          'toBeRecorded', (SELECT count(*) FROM "RecordingSuggestion" s
                           WHERE s."eventId" = e.id AND s."dancerId" = $1 AND s.status IN ${LIVE_SUGGESTION}),
          'toRecord', (SELECT count(*) FROM "RecordingSuggestion" s
                       WHERE s."eventId" = e.id AND s."recorderId" = $1 AND s.status IN ${LIVE_SUGGESTION})),
        'activeMatches', (SELECT count(*) FROM "Match" m
                          WHERE m."eventId" = e.id AND m.status = 'accepted' AND (m."user1Id" = $1 OR m."user2Id" = $1)),
        'videosReceived', (SELECT count(*) FROM "VideoTransfer" t JOIN "Match" m ON m.id = t."matchId"
                           WHERE t."receiverId" = $1 AND t.status = 'completed' AND m."eventId" = e.id)
      ) ORDER BY p."joinedAt" DESC, p.id DESC), '[]'::json)
      FROM "EventParticipant" p JOIN "Event" e ON e.id = p."eventId"
      WHERE p."userId" = $1) AS events,
     (SELECT coalesce(json_agg(${matchView.json()} ORDER BY m."createdAt" DESC, m.id DESC), '[]'::json)
      FROM "Match" m
      JOIN "Event" e ON e.id = m."eventId"
      JOIN "User" u ON u.id = m."user1Id"
      LEFT JOIN "ChatRoom" r ON r."matchId" = m.id
      WHERE m."user2Id" = $1 AND m.status = 'pending') AS incoming`,
  { perCaller: 1 },
);

type Json<T, K extends keyof T> = Omit<T, K> & { [P in K]: T[P] extends Date ? string : string | null };

interface DashboardRow {
  events: Json<DashboardEvent, 'startDate' | 'endDate' | 'joinedAt'>[];
  incoming: Json<IncomingRequest, 'createdAt' | 'respondedAt'>[];
}

/** The caller's overview: joined events with their figures and incoming match requests (read only). */
export interface DashboardDeps {
  sql: SqlReader;
}

export class DashboardService {
  constructor(private readonly deps: DashboardDeps) {}

  /**
   * GET /dashboard: the actor's user's overview (401 AUTH_REQUIRED without one), one statement
   * whatever the number of events (dashboardStatement).
   */
  async get(actor: Actor, _input: Record<string, never> = {}): Promise<Dashboard> {
    const userId = userOf(actor).id;
    const [{ events, incoming }] = await this.deps.sql.rows<DashboardRow>(dashboardStatement, [userId]);
    return {
      events: events.map((e) => ({
        ...e,
        startDate: toDate(e.startDate),
        endDate: toDate(e.endDate),
        joinedAt: toDate(e.joinedAt),
      })),
      incomingRequests: incoming.map((m) => ({
        ...m,
        createdAt: toDate(m.createdAt),
        respondedAt: toDate(m.respondedAt),
      })),
    };
  }
}

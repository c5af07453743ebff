import { prisma } from '../../lib/prisma.js';
import { matchInclude, toMatchView, type MatchView } from '../matches/matches.service.js';
import { bridgedContainer } from '../../container-bridge.js';

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
  /** completed video hand-offs the caller received in matches of this event */
  videosReceived: number;
}

export interface Dashboard {
  events: DashboardEvent[];
  incomingRequests: MatchView[];
}

const LIVE_SUGGESTION = ['pending', 'accepted'];

/**
 * GET /dashboard in a fixed number of queries (seven), whatever the number of events:
 * participations, then one grouped count per figure over all the caller's events, then
 * the incoming pending requests.
 */
export async function getDashboard(userId: number): Promise<Dashboard> {
  const participations = await prisma.eventParticipant.findMany({
    where: { userId },
    orderBy: [{ joinedAt: 'desc' }, { id: 'desc' }],
    select: {
      joinedAt: true,
      event: { select: { id: true, slug: true, name: true, location: true, startDate: true, endDate: true } },
    },
  });
  const eventIds = participations.map((p) => p.event.id);

  const [heats, asDancer, asRecorder, active, incoming, received] = await Promise.all([
    prisma.heat.groupBy({ by: ['eventId'], where: { userId, eventId: { in: eventIds } }, _count: { _all: true } }),
    prisma.recordingSuggestion.groupBy({
      by: ['eventId'],
      where: { dancerId: userId, eventId: { in: eventIds }, status: { in: LIVE_SUGGESTION } },
      _count: { _all: true },
    }),
    prisma.recordingSuggestion.groupBy({
      by: ['eventId'],
      where: { recorderId: userId, eventId: { in: eventIds }, status: { in: LIVE_SUGGESTION } },
      _count: { _all: true },
    }),
    prisma.match.groupBy({
      by: ['eventId'],
      where: { eventId: { in: eventIds }, status: 'accepted', OR: [{ user1Id: userId }, { user2Id: userId }] },
      _count: { _all: true },
    }),
    prisma.match.findMany({
      where: { user2Id: userId, status: 'pending' },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      include: matchInclude,
    }),
    bridgedContainer().transfers.receivedCountsByEvent(userId, eventIds),
  ]);

  const byEvent = (rows: { eventId: number; _count: { _all: number } }[]) =>
    new Map(rows.map((r) => [r.eventId, r._count._all]));
  const heatCounts = byEvent(heats);
  const dancerCounts = byEvent(asDancer);
  const recorderCounts = byEvent(asRecorder);
  const activeCounts = byEvent(active);

  return {
    events: participations.map(({ event, joinedAt }) => ({
      ...event,
      joinedAt,
      heatsCount: heatCounts.get(event.id) ?? 0,
      recordingSuggestions: {
        toBeRecorded: dancerCounts.get(event.id) ?? 0,
        toRecord: recorderCounts.get(event.id) ?? 0,
      },
      activeMatches: activeCounts.get(event.id) ?? 0,
      videosReceived: received.get(event.id) ?? 0,
    })),
    incomingRequests: incoming.map((m) => toMatchView(m, userId)),
  };
}

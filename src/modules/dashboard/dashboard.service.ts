import type { PrismaClient } from '../../generated/prisma/client.js';
import { userSummarySelect, type UserSummaryRow } from '../../lib/user-summary.js';
import type { TransfersService } from '../webrtc/transfers.service.js';

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

/** A pending match request to the caller, in the shape of the match object of matches.openapi.ts. */
export interface IncomingRequest {
  id: number;
  slug: string;
  status: string;
  source: string;
  createdAt: Date;
  respondedAt: Date | null;
  event: { id: number; slug: string; name: string };
  /** the requester */
  partner: UserSummaryRow;
  /** always false: the caller is the invited user */
  isInitiator: boolean;
  roomId: number | null;
  videosReceived: number;
}

export interface Dashboard {
  events: DashboardEvent[];
  incomingRequests: IncomingRequest[];
}

const LIVE_SUGGESTION = ['pending', 'accepted'];

const participationSelect = {
  joinedAt: true,
  event: { select: { id: true, slug: true, name: true, location: true, startDate: true, endDate: true } },
} as const;

const incomingRequestSelect = {
  id: true,
  slug: true,
  status: true,
  source: true,
  createdAt: true,
  respondedAt: true,
  event: { select: { id: true, slug: true, name: true } },
  user1: { select: userSummarySelect },
  chatRoom: { select: { id: true } },
} as const;

type CountRow = { eventId: number; _count: { _all: number } };
const byEvent = (rows: CountRow[]) => new Map(rows.map((r) => [r.eventId, r._count._all]));

/** The caller's overview: joined events with their figures and incoming match requests (read only). */
export class DashboardService {
  constructor(
    private readonly db: PrismaClient,
    private readonly transfers: TransfersService,
  ) {}

  /**
   * GET /dashboard in a fixed number of queries (seven), whatever the number of events:
   * participations (newest first), then one grouped count per figure over all the caller's
   * events, then the incoming pending requests (newest first).
   */
  async get(userId: number): Promise<Dashboard> {
    const participations = await this.db.eventParticipant.findMany({
      where: { userId },
      orderBy: [{ joinedAt: 'desc' }, { id: 'desc' }],
      select: participationSelect,
    });
    const eventIds = participations.map((p) => p.event.id);
    const [heats, asDancer, asRecorder, active, incoming, received] = await Promise.all([
      this.db.heat.groupBy({ by: ['eventId'], where: { userId, eventId: { in: eventIds } }, _count: { _all: true } }),
      this.liveSuggestions({ dancerId: userId, eventId: { in: eventIds } }),
      this.liveSuggestions({ recorderId: userId, eventId: { in: eventIds } }),
      this.db.match.groupBy({
        by: ['eventId'],
        where: { eventId: { in: eventIds }, status: 'accepted', OR: [{ user1Id: userId }, { user2Id: userId }] },
        _count: { _all: true },
      }),
      this.incomingRequests(userId),
      this.transfers.receivedCountsByEvent(userId, eventIds),
    ]);
    const [heatCounts, dancerCounts, recorderCounts, activeCounts] = [heats, asDancer, asRecorder, active].map(byEvent);
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
      incomingRequests: incoming,
    };
  }

  private liveSuggestions(where: { dancerId?: number; recorderId?: number; eventId: { in: number[] } }) {
    return this.db.recordingSuggestion.groupBy({
      by: ['eventId'],
      where: { ...where, status: { in: LIVE_SUGGESTION } },
      _count: { _all: true },
    });
  }

  private async incomingRequests(userId: number): Promise<IncomingRequest[]> {
    const rows = await this.db.match.findMany({
      where: { user2Id: userId, status: 'pending' },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      select: incomingRequestSelect,
    });
    return rows.map(({ user1, chatRoom, ...match }) => ({
      ...match,
      partner: user1,
      isInitiator: false,
      roomId: chatRoom?.id ?? null,
      // a pending request has no hand-offs yet (transfers need an accepted match)
      videosReceived: 0,
    }));
  }
}

import type { Prisma, PrismaClient } from '../../generated/prisma/client.js';
import { AppError } from '../../lib/errors.js';
import { userSummarySelect, type UserSummaryRow } from '../../lib/user-summary.js';
import type { MatchNotification } from '../../realtime/types.js';
import { eventRefView } from '../events/events.views.js';
import { completedTransfersInclude, videosReceivedBy } from '../webrtc/transfers.views.js';
import type { MatchSource, MatchStatus, MatchView } from './matches.views.js';

/**
 * What the services of the matches feature share: the Prisma shape of a match with its
 * relations, its API view, the member check and the pair's lock. The feature owns the tables
 * Match, Rating and the private ChatRoom of a match; only its services write them.
 */

export type Tx = Prisma.TransactionClient;
export type Db = Tx | PrismaClient;

/** A private room exists (and chat and rating are open) in these states. */
export const OPEN_STATUSES: readonly string[] = ['accepted', 'completed'];

/** Namespaces of the transaction-scoped advisory locks taken here (pg_advisory_xact_lock(int, int)). */
export const LOCK_REQUESTER = 6001;
const LOCK_PAIR = 6002;

// Long enough for 20 simultaneous requests that queue on the same advisory lock and pool.
export const TX_OPTIONS = { maxWait: 10_000, timeout: 15_000 } as const;

export const matchInclude = {
  event: { select: eventRefView.select },
  user1: { select: userSummarySelect },
  user2: { select: userSummarySelect },
  chatRoom: { select: { id: true } },
  transfers: completedTransfersInclude,
} as const;

export type MatchWithRelations = Prisma.MatchGetPayload<{ include: typeof matchInclude }>;

export const isMember = (match: { user1Id: number; user2Id: number }, userId: number) =>
  match.user1Id === userId || match.user2Id === userId;

/**
 * The match view (matches.views.ts) of a match read with its relations, seen by `viewerId`
 * (user1 = requester). Status and source are CHECKed by the Match table.
 */
export function toMatchView(match: MatchWithRelations, viewerId: number): MatchView {
  const isInitiator = match.user1Id === viewerId;
  return {
    id: match.id,
    slug: match.slug,
    status: match.status as MatchStatus,
    source: match.source as MatchSource,
    createdAt: match.createdAt,
    respondedAt: match.respondedAt,
    event: match.event,
    partner: isInitiator ? match.user2 : match.user1,
    isInitiator,
    roomId: match.chatRoom?.id ?? null,
    videosReceived: videosReceivedBy(match.transfers, viewerId),
  };
}

export function notification(match: MatchWithRelations, from: UserSummaryRow): MatchNotification {
  return { matchSlug: match.slug, event: { slug: match.event.slug, name: match.event.name }, from };
}

/** Serialises every create/reuse of a match between the same two users at the same event. */
export async function lockPair(tx: Tx, eventId: number, userAId: number, userBId: number): Promise<void> {
  const key = `${eventId}:${Math.min(userAId, userBId)}:${Math.max(userAId, userBId)}`;
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(${LOCK_PAIR}::int, hashtext(${key}))`;
}

/** The match of a slug if the user is one of its two members; 404 "Match not found" otherwise (no existence leak). */
export async function findMemberMatch(db: Db, slug: string, userId: number) {
  const match = await db.match.findUnique({ where: { slug }, include: matchInclude });
  if (!match || !isMember(match, userId)) throw new AppError('MATCH_NOT_FOUND');
  return match;
}

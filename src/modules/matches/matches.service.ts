import type { Request } from 'express';
import { Prisma } from '../../generated/prisma/client.js';
import type { AuthUser } from '../../lib/auth.js';
import { AppError } from '../../lib/errors.js';
import { randomSlug } from '../../lib/ids.js';
import { prisma } from '../../lib/prisma.js';
import { isUniqueViolation } from '../../lib/prisma-errors.js';
import { userSummarySelect, type UserSummaryRow } from '../../lib/user-summary.js';
import { emitToUser, getIO } from '../../realtime/io.js';
import { rooms, type ChatMessagePayload, type MatchNotification } from '../../realtime/types.js';
import { logActivity } from '../activity-log/activity-log.service.js';
import { listRoomMessages } from '../chat/chat.service.js';
import { findParticipation, getEventBySlug, assertParticipant } from '../events/event-access.js';
import { completedTransfersInclude, videosReceivedBy } from '../webrtc/transfers.service.js';

type Tx = Prisma.TransactionClient;

export const MATCH_STATUSES = ['pending', 'accepted', 'completed'] as const;
export type MatchStatus = (typeof MATCH_STATUSES)[number];
/** DECISIONS.md "Matches": at most 20 pending outgoing requests per user. */
export const MAX_PENDING_OUTGOING = 20;
/** A private room exists (and chat and rating are open) in these states. */
const OPEN_STATUSES: readonly string[] = ['accepted', 'completed'];

/** Namespaces of the transaction-scoped advisory locks taken here (pg_advisory_xact_lock(int, int)). */
const LOCK_REQUESTER = 6001;
const LOCK_PAIR = 6002;

// Long enough for 20 simultaneous requests that queue on the same advisory lock and pool.
const TX_OPTIONS = { maxWait: 10_000, timeout: 15_000 } as const;

export const matchInclude = {
  event: { select: { id: true, slug: true, name: true } },
  user1: { select: userSummarySelect },
  user2: { select: userSummarySelect },
  chatRoom: { select: { id: true } },
  transfers: completedTransfersInclude,
} as const;

export type MatchWithRelations = Prisma.MatchGetPayload<{ include: typeof matchInclude }>;

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

const isMember = (match: { user1Id: number; user2Id: number }, userId: number) =>
  match.user1Id === userId || match.user2Id === userId;

/** The match object of DECISIONS.md "Matches", seen by `viewerId` (user1 = requester). */
export function toMatchView(match: MatchWithRelations, viewerId: number): MatchView {
  const isInitiator = match.user1Id === viewerId;
  return {
    id: match.id,
    slug: match.slug,
    status: match.status,
    source: match.source,
    createdAt: match.createdAt,
    respondedAt: match.respondedAt,
    event: match.event,
    partner: isInitiator ? match.user2 : match.user1,
    isInitiator,
    roomId: match.chatRoom?.id ?? null,
    videosReceived: videosReceivedBy(match.transfers, viewerId),
  };
}

function notification(match: MatchWithRelations, from: UserSummaryRow): MatchNotification {
  return { matchSlug: match.slug, event: { slug: match.event.slug, name: match.event.name }, from };
}

const matchNotFound = () => new AppError('MATCH_NOT_FOUND');

/** The match of a slug if the user is one of its two members; 404 "Match not found" otherwise (no existence leak). */
async function findMemberMatch(slug: string, userId: number, db: Tx | typeof prisma = prisma) {
  const match = await db.match.findUnique({ where: { slug }, include: matchInclude });
  if (!match || !isMember(match, userId)) throw matchNotFound();
  return match;
}

/** Serialises every create/reuse of a match between the same two users at the same event. */
async function lockPair(tx: Tx, eventId: number, userAId: number, userBId: number): Promise<void> {
  const key = `${eventId}:${Math.min(userAId, userBId)}:${Math.max(userAId, userBId)}`;
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(${LOCK_PAIR}::int, hashtext(${key}))`;
}

async function createPrivateRoom(tx: Tx, matchId: number): Promise<void> {
  // Private rooms belong to a match, never to an event (ChatRoom_owner_check).
  await tx.chatRoom.upsert({ where: { matchId }, update: {}, create: { type: 'private', matchId, eventId: null } });
}

// ---------------------------------------------------------------------------------------------

export interface CreateMatchInput {
  targetUserId: number;
  eventSlug: string;
}

/**
 * POST /matches. Both users must participate in the event; the requester may hold at most
 * 20 pending outgoing requests (counted under a per-requester advisory lock, so parallel
 * requests cannot overshoot). Duplicates in either direction are refused by the unique
 * index Match_eventId_pair_key: the P2002 becomes 409.
 */
export async function createMatch(requester: AuthUser, input: CreateMatchInput, req?: Request): Promise<MatchView> {
  const event = await getEventBySlug(input.eventSlug);
  await assertParticipant(event.id, requester.id);
  if (input.targetUserId === requester.id) throw new AppError('MATCH_SELF');
  if (!(await findParticipation(event.id, input.targetUserId))) {
    throw new AppError('TARGET_NOT_PARTICIPANT');
  }

  let match: MatchWithRelations;
  try {
    match = await prisma.$transaction(async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(${LOCK_REQUESTER}::int, ${requester.id}::int)`;
      const pending = await tx.match.count({ where: { user1Id: requester.id, status: 'pending' } });
      if (pending >= MAX_PENDING_OUTGOING) {
        throw new AppError('TOO_MANY_PENDING_MATCHES', { message: `You can have at most ${MAX_PENDING_OUTGOING} pending match requests` });
      }
      await lockPair(tx, event.id, requester.id, input.targetUserId);
      return tx.match.create({
        data: {
          slug: randomSlug(),
          eventId: event.id,
          user1Id: requester.id,
          user2Id: input.targetUserId,
          status: 'pending',
          source: 'manual',
        },
        include: matchInclude,
      });
    }, TX_OPTIONS);
  } catch (err) {
    if (isUniqueViolation(err) && !isUniqueViolation(err, 'slug')) {
      void logActivity({ category: 'match', action: 'match_create', success: false, req, resource: `event:${event.slug}`, metadata: { reason: 'duplicate', targetUserId: input.targetUserId } });
      throw new AppError('MATCH_EXISTS');
    }
    throw err;
  }

  emitToUser(match.user2Id, 'match_request_received', notification(match, match.user1));
  await logActivity({
    category: 'match',
    action: 'match_create',
    req,
    resource: `match:${match.slug}`,
    metadata: { matchId: match.id, eventId: event.id, targetUserId: match.user2Id },
  });
  return toMatchView(match, requester.id);
}

export interface ListMatchesFilter {
  eventSlug?: string;
  status?: MatchStatus;
}

/** GET /matches: the caller's matches, newest first. An unknown eventSlug is 404 "Event not found". */
export async function listMatches(userId: number, filter: ListMatchesFilter): Promise<MatchView[]> {
  const event = filter.eventSlug ? await getEventBySlug(filter.eventSlug) : undefined;
  const rows = await prisma.match.findMany({
    where: {
      OR: [{ user1Id: userId }, { user2Id: userId }],
      ...(event ? { eventId: event.id } : {}),
      ...(filter.status ? { status: filter.status } : {}),
    },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    include: matchInclude,
  });
  return rows.map((m) => toMatchView(m, userId));
}

/** GET /matches/:slug, with `hasRated` for the caller. */
export async function getMatch(slug: string, userId: number): Promise<MatchView> {
  const match = await findMemberMatch(slug, userId);
  const rated = await prisma.rating.count({ where: { matchId: match.id, raterId: userId } });
  return { ...toMatchView(match, userId), hasRated: rated > 0 };
}

/**
 * PUT /matches/:slug/accept: only the target, only while pending. The status change is a
 * conditional update (status = 'pending'), so of two simultaneous accepts exactly one wins;
 * the private room is created in the same transaction.
 */
export async function acceptMatch(slug: string, user: AuthUser, req?: Request): Promise<MatchView> {
  const match = await prisma.$transaction(async (tx) => {
    const found = await findMemberMatch(slug, user.id, tx);
    if (found.user1Id === user.id) throw new AppError('NOT_MATCH_TARGET');
    if (found.status !== 'pending') throw new AppError('MATCH_NOT_PENDING');
    const updated = await tx.match.updateMany({
      where: { id: found.id, status: 'pending' },
      data: { status: 'accepted', respondedAt: new Date() },
    });
    if (updated.count === 0) throw new AppError('MATCH_NOT_PENDING');
    await createPrivateRoom(tx, found.id);
    return tx.match.findUniqueOrThrow({ where: { id: found.id }, include: matchInclude });
  }, TX_OPTIONS);

  emitToUser(match.user1Id, 'match_accepted', notification(match, match.user2));
  await logActivity({ category: 'match', action: 'match_accept', req, resource: `match:${match.slug}`, metadata: { matchId: match.id } });
  return toMatchView(match, user.id);
}

/**
 * DELETE /matches/:slug by either member: a pending match deleted by its target is a
 * rejection, anything else a cancellation. The match goes away with its private room and
 * messages (cascade); ratings stay with matchId null.
 */
export async function deleteMatch(slug: string, user: AuthUser, req?: Request): Promise<{ action: 'rejected' | 'cancelled' }> {
  const match = await prisma.$transaction(async (tx) => {
    const found = await findMemberMatch(slug, user.id, tx);
    const deleted = await tx.match.deleteMany({ where: { id: found.id } });
    if (deleted.count === 0) throw matchNotFound();
    return found;
  }, TX_OPTIONS);

  const rejected = match.status === 'pending' && match.user2Id === user.id;
  const other = match.user1Id === user.id ? match.user2Id : match.user1Id;
  const caller = match.user1Id === user.id ? match.user1 : match.user2;
  emitToUser(other, 'match_cancelled', notification(match, caller));
  // Sockets still in the private room stop receiving anything of a match that no longer exists.
  try {
    getIO()?.in(rooms.match(match.id)).socketsLeave(rooms.match(match.id));
  } catch {
    /* best effort */
  }
  await logActivity({
    category: 'match',
    action: rejected ? 'match_reject' : 'match_cancel',
    req,
    resource: `match:${match.slug}`,
    metadata: { matchId: match.id, previousStatus: match.status },
  });
  return { action: rejected ? 'rejected' : 'cancelled' };
}

/**
 * GET /matches/:slug/messages: members only. A pending match has no room yet: empty page.
 */
export async function listMatchMessages(
  slug: string,
  userId: number,
  paging: { before?: number; limit?: number },
): Promise<{ messages: ChatMessagePayload[]; hasMore: boolean }> {
  const match = await findMemberMatch(slug, userId);
  if (!match.chatRoom) return { messages: [], hasMore: false };
  return listRoomMessages(match.chatRoom.id, paging);
}

// ---------------------------------------------------------------------------------------------
// Ratings

export interface RateInput {
  score: number;
  comment?: string | null;
  wouldCollaborateAgain?: boolean | null;
}

const ratingInclude = {
  rater: { select: { id: true, username: true, avatar: true } },
  rated: { select: { id: true, username: true, avatar: true } },
  event: { select: { id: true, slug: true, name: true } },
} as const;

export type RatingView = Prisma.RatingGetPayload<{ include: typeof ratingInclude }>;

/**
 * POST /matches/:slug/ratings. The match row is locked FOR UPDATE first, so two members
 * rating at the same moment are serialised: the second one counts both ratings and the
 * match becomes `completed` exactly once. A second rating by the same rater is refused by
 * the unique (matchId, raterId, ratedId) index → 409.
 */
export async function rateMatch(slug: string, user: AuthUser, input: RateInput, req?: Request): Promise<RatingView> {
  let completed = false;
  let rating: RatingView;
  let matchSlug = slug;
  try {
    rating = await prisma.$transaction(async (tx) => {
      const locked = await tx.$queryRaw<{ id: number }[]>`SELECT "id" FROM "Match" WHERE "slug" = ${slug} FOR UPDATE`;
      if (locked.length === 0) throw matchNotFound();
      const match = await findMemberMatch(slug, user.id, tx);
      matchSlug = match.slug;
      if (!OPEN_STATUSES.includes(match.status)) {
        throw new AppError('MATCH_NOT_ACCEPTED');
      }
      const created = await tx.rating.create({
        data: {
          matchId: match.id,
          raterId: user.id,
          ratedId: match.user1Id === user.id ? match.user2Id : match.user1Id,
          eventId: match.eventId,
          score: input.score,
          comment: input.comment ?? null,
          wouldCollaborateAgain: input.wouldCollaborateAgain ?? null,
        },
        include: ratingInclude,
      });
      const raters = await tx.rating.count({ where: { matchId: match.id } });
      if (raters >= 2 && match.status === 'accepted') {
        const updated = await tx.match.updateMany({ where: { id: match.id, status: 'accepted' }, data: { status: 'completed' } });
        completed = updated.count === 1;
      }
      return created;
    }, TX_OPTIONS);
  } catch (err) {
    if (isUniqueViolation(err)) {
      void logActivity({ category: 'match', action: 'match_rate', success: false, req, resource: `match:${matchSlug}`, metadata: { reason: 'duplicate' } });
      throw new AppError('ALREADY_RATED');
    }
    throw err;
  }

  await logActivity({
    category: 'match',
    action: 'match_rate',
    req,
    resource: `match:${matchSlug}`,
    metadata: { ratingId: rating.id, matchId: rating.matchId, score: rating.score, completed },
  });
  if (completed) {
    await logActivity({ category: 'match', action: 'match_complete', req, resource: `match:${matchSlug}`, metadata: { matchId: rating.matchId } });
  }
  return rating;
}

// ---------------------------------------------------------------------------------------------
// Private chat (Socket.IO): access rules shared by join_private_room and send_private_message

/**
 * The private room of a match the user may chat in: a member of an accepted or completed
 * match. Non-members and unknown ids get "Match not found".
 */
export async function privateRoomFor(matchId: number, userId: number): Promise<{ matchId: number; roomId: number }> {
  const match = await prisma.match.findUnique({
    where: { id: matchId },
    select: { id: true, user1Id: true, user2Id: true, status: true, chatRoom: { select: { id: true } } },
  });
  if (!match || !isMember(match, userId)) throw matchNotFound();
  if (!OPEN_STATUSES.includes(match.status) || !match.chatRoom) {
    throw new AppError('MATCH_NOT_ACCEPTED', { message: 'Private chat is available only for accepted matches' });
  }
  return { matchId: match.id, roomId: match.chatRoom.id };
}

// ---------------------------------------------------------------------------------------------
// Recording-partner matching (an accepted suggestion creates or reuses an accepted match)

export interface AcceptedMatchInput {
  eventId: number;
  /** becomes user1 (initiator) of a new match: the dancer of the suggestion */
  userAId: number;
  userBId: number;
  suggestionId: number;
}

/**
 * Inside the caller's transaction: the match between the two users at the event, accepted
 * and with its private room. An existing match is reused (accepted if pending, room created
 * if missing, linked to the suggestion if it had none); otherwise an accepted match with
 * source 'auto' is created. Serialised with POST /matches by the pair's advisory lock, so it
 * never collides with a concurrent manual request.
 */
export async function createOrReuseAcceptedMatch(
  tx: Tx,
  input: AcceptedMatchInput,
): Promise<MatchWithRelations & { becameAccepted: boolean }> {
  if (input.userAId === input.userBId) throw new AppError('MATCH_SELF', { message: 'A match needs two different users' });
  await lockPair(tx, input.eventId, input.userAId, input.userBId);
  const existing = await tx.match.findFirst({
    where: {
      eventId: input.eventId,
      OR: [
        { user1Id: input.userAId, user2Id: input.userBId },
        { user1Id: input.userBId, user2Id: input.userAId },
      ],
    },
  });
  let matchId: number;
  // true when this call moved the pair to accepted (new match, or a pending one accepted)
  const becameAccepted = !existing || existing.status === 'pending';
  if (existing) {
    matchId = existing.id;
    const data: Prisma.MatchUncheckedUpdateInput = {};
    if (existing.status === 'pending') Object.assign(data, { status: 'accepted', respondedAt: new Date() });
    if (existing.suggestionId === null) {
      const taken = await tx.match.count({ where: { suggestionId: input.suggestionId } });
      if (taken === 0) data.suggestionId = input.suggestionId;
    }
    if (Object.keys(data).length > 0) await tx.match.update({ where: { id: existing.id }, data });
  } else {
    const created = await tx.match.create({
      data: {
        slug: randomSlug(),
        eventId: input.eventId,
        user1Id: input.userAId,
        user2Id: input.userBId,
        status: 'accepted',
        source: 'auto',
        suggestionId: input.suggestionId,
        respondedAt: new Date(),
      },
    });
    matchId = created.id;
  }
  await createPrivateRoom(tx, matchId);
  const match = await tx.match.findUniqueOrThrow({ where: { id: matchId }, include: matchInclude });
  return { ...match, becameAccepted };
}

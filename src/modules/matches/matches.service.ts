import type { Prisma, PrismaClient } from '../../generated/prisma/client.js';
import type { Actor } from '../../lib/actor.js';
import type { AuthUser } from '../../lib/auth.js';
import type { Clock } from '../../lib/clock.js';
import { AppError } from '../../lib/errors.js';
import { sql, toDate, type SqlReader } from '../../lib/sql.js';
import { randomSlug } from '../../lib/ids.js';
import { isForeignKeyViolation, isUniqueViolation } from '../../lib/prisma-errors.js';
import { DELETED_USER_SUMMARY, userSummarySelect, type UserSummaryRow } from '../../lib/user-summary.js';
import { MATCH_VIEW_JSON_FIELDS, type MatchView } from './matches.views.js';

export { MATCH_VIEW_JSON_FIELDS, type MatchView };
import type { Notifier } from '../../realtime/notifier.js';
import { rooms, type ChatMessagePayload, type MatchNotification } from '../../realtime/types.js';
import type { ActivityLogService } from '../activity-log/activity-log.service.js';
import type { FloodLimiter, RefundableLimiter } from '../../lib/flood-limit.js';
import type { Metrics } from '../../lib/metrics.js';
import type { EventAccess } from '../events/event-access.js';
import type { MatchStatus } from './matches.schemas.js';
import { completedTransfersInclude, videosReceivedBy } from '../webrtc/transfers.views.js';
import { isBlockedPair, lockUserPair } from '../moderation/blocks.views.js';

type Tx = Prisma.TransactionClient;
type Db = Tx | PrismaClient;
type Author = Pick<AuthUser, 'id' | 'username' | 'avatar'>;

/** At most 20 pending outgoing requests per user (documented in matches.openapi.ts). */
export const MAX_PENDING_OUTGOING = 20;
/** A private room exists (and chat and rating are open) in these states. */
const OPEN_STATUSES: readonly string[] = ['accepted', 'completed'];
/** join_private_room answers the last 20 messages. */
const JOIN_HISTORY = 20;

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

/**
 * The caller's matches ($1) as json match objects, newest first, optionally of one event ($2,
 * a slug; `eventFound` is false for an unknown one) and status ($3): one statement for the
 * list the phones poll. Indexes: Match(user1Id, status) and Match(user2Id, status) (a bitmap OR),
 * Event(slug), ChatRoom(matchId), VideoTransfer(matchId, createdAt).
 */
const matchList = sql(
  'matches_list',
  `WITH ev AS (SELECT id FROM "Event" WHERE slug = $2::text)
   SELECT ($2::text IS NULL OR EXISTS (SELECT 1 FROM ev)) AS "eventFound",
     (SELECT coalesce(json_agg(json_build_object(
        ${MATCH_VIEW_JSON_FIELDS},
        'isInitiator', m."user1Id" = $1, 'roomId', r.id,
        'videosReceived', (SELECT count(*) FROM "VideoTransfer" t
                           WHERE t."matchId" = m.id AND t.status = 'completed' AND t."receiverId" = $1)
      ) ORDER BY m."createdAt" DESC, m.id DESC), '[]'::json)
      FROM "Match" m
      JOIN "Event" e ON e.id = m."eventId"
      JOIN "User" u ON u.id = CASE WHEN m."user1Id" = $1 THEN m."user2Id" ELSE m."user1Id" END
      LEFT JOIN "ChatRoom" r ON r."matchId" = m.id
      WHERE (m."user1Id" = $1 OR m."user2Id" = $1)
        AND ($2::text IS NULL OR m."eventId" = (SELECT id FROM ev))
        AND ($3::text IS NULL OR m.status = $3::text)) AS matches`,
);

interface MatchListRow {
  eventFound: boolean;
  matches: (Omit<MatchView, 'createdAt' | 'respondedAt'> & { createdAt: string; respondedAt: string | null })[];
}

const isMember = (match: { user1Id: number; user2Id: number }, userId: number) =>
  match.user1Id === userId || match.user2Id === userId;

/** The match object of the API (matches.openapi.ts), seen by `viewerId` (user1 = requester). */
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

/** Serialises every create/reuse of a match between the same two users at the same event. */
async function lockPair(tx: Tx, eventId: number, userAId: number, userBId: number): Promise<void> {
  const key = `${eventId}:${Math.min(userAId, userBId)}:${Math.max(userAId, userBId)}`;
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(${LOCK_PAIR}::int, hashtext(${key}))`;
}

async function createPrivateRoom(tx: Tx, matchId: number): Promise<void> {
  // Private rooms belong to a match, never to an event (ChatRoom_owner_check).
  await tx.chatRoom.upsert({ where: { matchId }, update: {}, create: { type: 'private', matchId, eventId: null } });
}

export interface CreateMatchInput {
  targetUserId: number;
  eventSlug: string;
}

export interface ListMatchesFilter {
  eventSlug?: string;
  status?: MatchStatus;
}

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

export interface AcceptedMatchInput {
  eventId: number;
  /** becomes user1 (initiator) of a new match: the dancer of the suggestion */
  userAId: number;
  userBId: number;
  suggestionId: number;
}

/** The chat core's content rule, message writer and history reader (src/modules/chat/chat.service.ts). */
export interface MatchChat {
  validateContent(content: unknown): string;
  /** `guard` runs first inside the message's transaction (here: the pair's block check under its lock) */
  createMessage(
    roomId: number,
    author: Author,
    content: string,
    guard?: (tx: Tx) => Promise<void>,
  ): Promise<ChatMessagePayload>;
  listRoomMessages(
    roomId: number,
    paging?: { before?: number; limit?: number },
  ): Promise<{ messages: ChatMessagePayload[]; hasMore: boolean }>;
}

export interface MatchesSettings {
  requireEmailVerification: boolean;
  /** match requests per requester (config `matchRequests`: a token bucket) */
  requestLimit: RefundableLimiter;
}

/** A match removed by an account deletion: whom to tell after the commit. */
export interface RemovedMatch {
  id: number;
  slug: string;
  event: { slug: string; name: string };
  /** the other member */
  partnerId: number;
}

/** Matches between two participants of an event, their ratings and their private chat. */
export class MatchesService {
  constructor(
    private readonly db: PrismaClient,
    private readonly sql: SqlReader,
    private readonly notifier: Notifier,
    private readonly audit: ActivityLogService,
    private readonly eventAccess: EventAccess,
    private readonly chat: MatchChat,
    private readonly chatFlood: FloodLimiter,
    private readonly clock: Clock,
    private readonly metrics: Metrics,
    private readonly settings: MatchesSettings,
  ) {}

  /**
   * A match request. Checks: event 404 → requester participates 403 → not oneself 400 →
   * target participates 400 → no block between the two 403 USER_BLOCKED (checked under the pair's
   * lock, which a block takes too: a request racing with a block is refused, or created and
   * then removed by the block) → at most 20 pending outgoing requests 429 (counted under a
   * per-requester advisory lock, so parallel requests cannot overshoot) → the requester's
   * request rate 429 MATCH_REQUESTS_RATE_LIMITED (a token bucket per requester, taken under
   * the same lock and given back when nothing was created, so request+cancel cycles cannot
   * flood a user with notifications and a refused duplicate costs nothing) → no match of the pair
   * in either direction 409 (the unique index Match_eventId_pair_key decides: P2002 → 409).
   * After the commit the target gets `match_request_received`. Audited as match/match_create
   * (also the refused duplicate).
   */
  async createMatch(requester: AuthUser, input: CreateMatchInput, actor: Actor): Promise<MatchView> {
    const event = await this.eventAccess.getBySlug(input.eventSlug);
    await this.eventAccess.assertParticipant(event.id, requester.id);
    if (input.targetUserId === requester.id) throw new AppError('MATCH_SELF');
    if (!(await this.eventAccess.findParticipation(event.id, input.targetUserId)))
      throw new AppError('TARGET_NOT_PARTICIPANT');

    let match: MatchWithRelations;
    try {
      match = await this.db.$transaction(
        (tx) => this.insertRequest(tx, event.id, requester.id, input.targetUserId),
        TX_OPTIONS,
      );
    } catch (err) {
      if (isUniqueViolation(err) && !isUniqueViolation(err, 'slug')) {
        const metadata = { reason: 'duplicate', targetUserId: input.targetUserId };
        await this.audit.record(actor, {
          category: 'match',
          action: 'match_create',
          success: false,
          resource: `event:${event.slug}`,
          metadata,
        });
        throw new AppError('MATCH_EXISTS');
      }
      throw err;
    }

    this.notifier.toUser(match.user2Id, 'match_request_received', notification(match, match.user1));
    const metadata = { matchId: match.id, eventId: event.id, targetUserId: match.user2Id };
    await this.audit.record(actor, {
      category: 'match',
      action: 'match_create',
      resource: `match:${match.slug}`,
      metadata,
    });
    return toMatchView(match, requester.id);
  }

  /** The caller's matches, newest first, optionally of one event (unknown slug 404) and status; one statement. */
  async listMatches(userId: number, filter: ListMatchesFilter): Promise<MatchView[]> {
    const [row] = await this.sql.rows<MatchListRow>(matchList, [
      userId,
      filter.eventSlug ?? null,
      filter.status ?? null,
    ]);
    if (!row.eventFound) throw new AppError('EVENT_NOT_FOUND');
    return row.matches.map((m) => ({ ...m, createdAt: toDate(m.createdAt), respondedAt: toDate(m.respondedAt) }));
  }

  /** One match of the caller with `hasRated`; 404 unless the caller is one of its two members. */
  async getMatch(slug: string, userId: number): Promise<MatchView> {
    const match = await this.findMemberMatch(slug, userId);
    const rated = await this.db.rating.count({ where: { matchId: match.id, raterId: userId } });
    return { ...toMatchView(match, userId), hasRated: rated > 0 };
  }

  /**
   * Accepts a match. Checks: member 404 → the target, not the requester 403 → pending 400. The
   * status change is a conditional update (status = 'pending'), so of two simultaneous accepts
   * exactly one wins; the private room is created in the same transaction. After the commit
   * the requester gets `match_accepted`. Audited as match/match_accept.
   */
  async acceptMatch(slug: string, user: AuthUser, actor: Actor): Promise<MatchView> {
    const match = await this.db.$transaction(async (tx) => {
      const found = await this.findMemberMatch(slug, user.id, tx);
      if (found.user1Id === user.id) throw new AppError('NOT_MATCH_TARGET');
      if (found.status !== 'pending') throw new AppError('MATCH_NOT_PENDING');
      const updated = await tx.match.updateMany({
        where: { id: found.id, status: 'pending' },
        data: { status: 'accepted', respondedAt: this.clock.now() },
      });
      if (updated.count === 0) throw new AppError('MATCH_NOT_PENDING');
      await createPrivateRoom(tx, found.id);
      return tx.match.findUniqueOrThrow({ where: { id: found.id }, include: matchInclude });
    }, TX_OPTIONS);

    this.notifier.toUser(match.user1Id, 'match_accepted', notification(match, match.user2));
    await this.audit.record(actor, {
      category: 'match',
      action: 'match_accept',
      resource: `match:${match.slug}`,
      metadata: { matchId: match.id },
    });
    return toMatchView(match, user.id);
  }

  /**
   * Deletes a match on behalf of either member (404 otherwise): a pending match deleted by its
   * target is a rejection, anything else a cancellation. The match goes away with its private
   * room and messages (cascade); ratings stay with matchId null. After the commit the other
   * member gets `match_cancelled` and both members' sockets leave the private room. Audited as
   * match/match_reject or match/match_cancel.
   */
  async deleteMatch(slug: string, user: AuthUser, actor: Actor): Promise<{ action: 'rejected' | 'cancelled' }> {
    const match = await this.db.$transaction(async (tx) => {
      const found = await this.findMemberMatch(slug, user.id, tx);
      const deleted = await tx.match.deleteMany({ where: { id: found.id } });
      if (deleted.count === 0) throw new AppError('MATCH_NOT_FOUND');
      return found;
    }, TX_OPTIONS);
    return this.announceDeletion(match, user.id, actor);
  }

  /**
   * Inside the caller's transaction (a block, under the pair's lock): deletes every `pending` or
   * `accepted` match of the two users, at any event, with their private rooms and messages
   * (cascade). Completed matches stay. The caller announces each one after the commit
   * (announceDeletion), exactly as DELETE /matches/:slug by `userA` would.
   */
  async deletePairMatchesInTx(tx: Tx, userA: number, userB: number): Promise<MatchWithRelations[]> {
    const found = await tx.match.findMany({
      where: {
        status: { in: ['pending', 'accepted'] },
        OR: [
          { user1Id: userA, user2Id: userB },
          { user1Id: userB, user2Id: userA },
        ],
      },
      include: matchInclude,
    });
    if (found.length > 0) await tx.match.deleteMany({ where: { id: { in: found.map((m) => m.id) } } });
    return found;
  }

  /**
   * After a match was deleted by `byUserId`: the other member gets `match_cancelled`, both
   * members' sockets leave the private room, and the deletion is audited as match/match_reject
   * (a pending match deleted by its target) or match/match_cancel.
   */
  async announceDeletion(
    match: MatchWithRelations,
    byUserId: number,
    actor: Actor,
  ): Promise<{ action: 'rejected' | 'cancelled' }> {
    const rejected = match.status === 'pending' && match.user2Id === byUserId;
    const byUser1 = match.user1Id === byUserId;
    this.notifier.toUser(
      byUser1 ? match.user2Id : match.user1Id,
      'match_cancelled',
      notification(match, byUser1 ? match.user1 : match.user2),
    );
    // Sockets still in the private room stop receiving anything of a match that no longer exists.
    for (const member of [match.user1Id, match.user2Id])
      this.notifier.removeUserFromRoom(member, rooms.match(match.id));
    await this.audit.record(actor, {
      category: 'match',
      action: rejected ? 'match_reject' : 'match_cancel',
      resource: `match:${match.slug}`,
      metadata: { matchId: match.id, previousStatus: match.status },
    });
    return { action: rejected ? 'rejected' : 'cancelled' };
  }

  /**
   * Account deletion (src/modules/privacy), inside the caller's transaction: every match of the
   * user, either side and any status, goes as DELETE /matches/:slug removes one (private room,
   * its messages and the transfer records by cascade; ratings stay with matchId null). Answers
   * what `notifyRemovedMatches` tells the partners after the commit.
   */
  async removeMatchesOf(tx: Tx, userId: number): Promise<RemovedMatch[]> {
    const found = await tx.match.findMany({
      where: { OR: [{ user1Id: userId }, { user2Id: userId }] },
      select: { id: true, slug: true, user1Id: true, user2Id: true, event: { select: { slug: true, name: true } } },
    });
    if (found.length > 0) await tx.match.deleteMany({ where: { id: { in: found.map((m) => m.id) } } });
    return found.map((m) => ({
      id: m.id,
      slug: m.slug,
      event: m.event,
      partnerId: m.user1Id === userId ? m.user2Id : m.user1Id,
    }));
  }

  /** After the deletion committed: each partner gets `match_cancelled` from the placeholder and leaves the private room. */
  notifyRemovedMatches(removed: RemovedMatch[], deletedUserId: number): void {
    for (const match of removed) {
      this.notifier.toUser(match.partnerId, 'match_cancelled', {
        matchSlug: match.slug,
        event: match.event,
        from: { ...DELETED_USER_SUMMARY },
      });
      for (const member of [match.partnerId, deletedUserId])
        this.notifier.removeUserFromRoom(member, rooms.match(match.id));
    }
  }

  /**
   * Account deletion, inside the caller's transaction: ratings the user received go (their
   * raters' `given` counts drop); ratings the user gave stay and still count, without their
   * comment (the rater becomes null with the account: shown as the placeholder).
   */
  async anonymiseRatingsOf(tx: Tx, userId: number): Promise<void> {
    await tx.rating.deleteMany({ where: { ratedId: userId } });
    await tx.rating.updateMany({ where: { raterId: userId }, data: { raterId: null, comment: null } });
  }

  /**
   * The data export (src/modules/privacy): ratings the user gave (with whom they rated) and
   * received (with the rater, the placeholder for a deleted one), newest first, no cap.
   */
  async ratingsOfUser(userId: number) {
    const common = {
      id: true,
      score: true,
      comment: true,
      wouldCollaborateAgain: true,
      createdAt: true,
      event: { select: { id: true, slug: true, name: true } },
    } as const;
    const order = [{ createdAt: 'desc' as const }, { id: 'desc' as const }];
    const brief = { select: { id: true, username: true, avatar: true } } as const;
    const [given, received] = await Promise.all([
      this.db.rating.findMany({ where: { raterId: userId }, select: { ...common, rated: brief }, orderBy: order }),
      this.db.rating.findMany({ where: { ratedId: userId }, select: { ...common, rater: brief }, orderBy: order }),
    ]);
    const placeholder = {
      id: DELETED_USER_SUMMARY.id,
      username: DELETED_USER_SUMMARY.username,
      avatar: DELETED_USER_SUMMARY.avatar,
    };
    return { given, received: received.map((r) => ({ ...r, rater: r.rater ?? placeholder })) };
  }

  /** A page of the private chat history: members only (404); a pending match has no room yet: empty page. */
  async listMatchMessages(slug: string, userId: number, paging: { before?: number; limit?: number }) {
    const match = await this.findMemberMatch(slug, userId);
    if (!match.chatRoom) return { messages: [], hasMore: false };
    return this.chat.listRoomMessages(match.chatRoom.id, paging);
  }

  /**
   * Rates the partner of an accepted or completed match. Checks: member 404 → accepted 400 →
   * not rated yet 409. The match row is locked FOR UPDATE first, so two members rating at the
   * same moment are serialised: the second one counts both ratings and the match becomes
   * `completed` exactly once. A second rating by the same rater of the same user at the same
   * event, on this match or another one, is refused by the unique (raterId, ratedId, eventId)
   * index → 409 ALREADY_RATED. Audited as match/match_rate (also the refused
   * duplicate) and, when it completes the match, match/match_complete.
   */
  async rateMatch(slug: string, user: AuthUser, input: RateInput, actor: Actor): Promise<RatingView> {
    let rated: { rating: RatingView; completed: boolean };
    try {
      rated = await this.db.$transaction((tx) => this.insertRating(tx, slug, user.id, input), TX_OPTIONS);
    } catch (err) {
      if (isUniqueViolation(err)) {
        await this.audit.record(actor, {
          category: 'match',
          action: 'match_rate',
          success: false,
          resource: `match:${slug}`,
          metadata: { reason: 'duplicate' },
        });
        throw new AppError('ALREADY_RATED');
      }
      throw err;
    }
    const { rating, completed } = rated;
    const resource = `match:${slug}`;
    const metadata = { ratingId: rating.id, matchId: rating.matchId, score: rating.score, completed };
    await this.audit.record(actor, { category: 'match', action: 'match_rate', resource, metadata });
    if (completed) {
      await this.audit.record(actor, {
        category: 'match',
        action: 'match_complete',
        resource,
        metadata: { matchId: rating.matchId },
      });
    }
    return rating;
  }

  /**
   * Opens the private chat of a match for one of its sockets: members of an accepted or
   * completed match only. Checks: member 404 (also for an unknown id) → accepted 400 → no block
   * between the members 403 USER_BLOCKED (a completed match of a blocked pair). `enter`
   * puts the socket into the match room before the history is read, so no message falls
   * between the history and the live stream. Answers the last 20 messages, oldest first.
   */
  async joinPrivateRoom(matchId: number, userId: number, enter: (room: string) => Promise<void> | void) {
    const { roomId } = await this.privateRoom(matchId, userId);
    await enter(rooms.match(matchId));
    const { messages } = await this.chat.listRoomMessages(roomId, { limit: JOIN_HISTORY });
    return { matchId, roomId, messages };
  }

  /**
   * Stores a private message of `author` in the match's room. Checks: content 400 (the chat
   * core's rule) → flood limit 429 (the limiter shared with the event chat: ~5 messages/s with
   * bursts of 10 per user) → member 404 → accepted 400 → no block 403 USER_BLOCKED → verified
   * e-mail 403 (read from the database, not the token) → not a duplicate 409 DUPLICATE_MESSAGE
   * (the chat core's rule). The block is checked again under the pair's shared lock in the
   * message's transaction, so a message racing with a block is either stored before it or
   * refused. The caller broadcasts the answer (`private_message` to the match room).
   */
  async sendPrivateMessage(
    matchId: number,
    author: Author,
    content: unknown,
  ): Promise<ChatMessagePayload & { matchId: number }> {
    const text = this.chat.validateContent(content);
    if (!(await this.chatFlood.take(author.id))) throw new AppError('CHAT_FLOOD');
    const { roomId, senderVerified, partnerId } = await this.privateRoom(matchId, author.id);
    if (this.settings.requireEmailVerification && !senderVerified) throw new AppError('EMAIL_NOT_VERIFIED');
    const guard = async (tx: Tx) => {
      await lockUserPair(tx, author.id, partnerId, 'shared');
      if (await isBlockedPair(tx, author.id, partnerId)) throw new AppError('USER_BLOCKED');
    };
    let message: ChatMessagePayload;
    try {
      message = await this.chat.createMessage(roomId, author, text, guard);
    } catch (err) {
      // the match (and its room) was deleted meanwhile
      if (isForeignKeyViolation(err)) throw new AppError('MATCH_NOT_FOUND');
      throw err;
    }
    this.metrics.chatMessageStored('private');
    return { ...message, matchId };
  }

  /**
   * Inside the caller's transaction: the match between the two users at the event, accepted
   * and with its private room. An existing match is reused (accepted if pending, room created
   * if missing, linked to the suggestion if it had none); otherwise an accepted match with
   * source 'auto' is created. Serialised with createMatch by the pair's advisory lock, so it
   * never collides with a concurrent manual request. `becameAccepted`: this call moved the
   * pair to accepted (a new match, or a pending one accepted).
   */
  createOrReuseAcceptedMatch(
    tx: Tx,
    input: AcceptedMatchInput,
  ): Promise<MatchWithRelations & { becameAccepted: boolean }> {
    return acceptedMatchInTx(tx, input, this.clock.now());
  }

  /** The match of a slug if the user is one of its two members; 404 "Match not found" otherwise (no existence leak). */
  private async findMemberMatch(slug: string, userId: number, db: Db = this.db) {
    const match = await db.match.findUnique({ where: { slug }, include: matchInclude });
    if (!match || !isMember(match, userId)) throw new AppError('MATCH_NOT_FOUND');
    return match;
  }

  /**
   * The private room of a match the user may chat in, with whether the user's e-mail is verified
   * (one query): member 404 → accepted or completed 400 → no block between the members 403.
   */
  private async privateRoom(
    matchId: number,
    userId: number,
  ): Promise<{ roomId: number; senderVerified: boolean; partnerId: number }> {
    const match = await this.db.match.findUnique({
      where: { id: matchId },
      select: {
        user1Id: true,
        user2Id: true,
        status: true,
        chatRoom: { select: { id: true } },
        user1: { select: { emailVerified: true } },
        user2: { select: { emailVerified: true } },
      },
    });
    if (!match || !isMember(match, userId)) throw new AppError('MATCH_NOT_FOUND');
    if (!OPEN_STATUSES.includes(match.status) || !match.chatRoom) {
      throw new AppError('MATCH_NOT_ACCEPTED', { message: 'Private chat is available only for accepted matches' });
    }
    const sender = match.user1Id === userId ? match.user1 : match.user2;
    const partnerId = match.user1Id === userId ? match.user2Id : match.user1Id;
    if (await isBlockedPair(this.db, userId, partnerId)) throw new AppError('USER_BLOCKED');
    return { roomId: match.chatRoom.id, senderVerified: sender.emailVerified, partnerId };
  }

  private async insertRequest(
    tx: Tx,
    eventId: number,
    requesterId: number,
    targetUserId: number,
  ): Promise<MatchWithRelations> {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(${LOCK_REQUESTER}::int, ${requesterId}::int)`;
    // the block's lock: a block of the pair commits either before this check or after this request
    await lockUserPair(tx, requesterId, targetUserId);
    if (await isBlockedPair(tx, requesterId, targetUserId)) throw new AppError('USER_BLOCKED');
    const pending = await tx.match.count({ where: { user1Id: requesterId, status: 'pending' } });
    if (pending >= MAX_PENDING_OUTGOING) {
      throw new AppError('TOO_MANY_PENDING_MATCHES', {
        message: `You can have at most ${MAX_PENDING_OUTGOING} pending match requests`,
      });
    }
    if (!this.settings.requestLimit.take(requesterId)) {
      // issue 23: every 429 says when to come back (the bucket holds a request again)
      const retryAfter = String(this.settings.requestLimit.retryAfterSeconds(requesterId));
      throw new AppError('MATCH_REQUESTS_RATE_LIMITED', { headers: { 'Retry-After': retryAfter } });
    }
    try {
      await lockPair(tx, eventId, requesterId, targetUserId);
      return await tx.match.create({
        data: {
          slug: randomSlug(),
          eventId,
          user1Id: requesterId,
          user2Id: targetUserId,
          status: 'pending',
          source: 'manual',
        },
        include: matchInclude,
      });
    } catch (err) {
      this.settings.requestLimit.refund(requesterId);
      throw err;
    }
  }

  private async insertRating(tx: Tx, slug: string, userId: number, input: RateInput) {
    const locked = await tx.$queryRaw<{ id: number }[]>`SELECT "id" FROM "Match" WHERE "slug" = ${slug} FOR UPDATE`;
    if (locked.length === 0) throw new AppError('MATCH_NOT_FOUND');
    const match = await this.findMemberMatch(slug, userId, tx);
    if (!OPEN_STATUSES.includes(match.status)) throw new AppError('MATCH_NOT_ACCEPTED');
    const rating = await tx.rating.create({
      data: {
        matchId: match.id,
        raterId: userId,
        ratedId: match.user1Id === userId ? match.user2Id : match.user1Id,
        eventId: match.eventId,
        score: input.score,
        comment: input.comment ?? null,
        wouldCollaborateAgain: input.wouldCollaborateAgain ?? null,
      },
      include: ratingInclude,
    });
    let completed = false;
    const raters = await tx.rating.count({ where: { matchId: match.id } });
    if (raters >= 2 && match.status === 'accepted') {
      const updated = await tx.match.updateMany({
        where: { id: match.id, status: 'accepted' },
        data: { status: 'completed' },
      });
      completed = updated.count === 1;
    }
    return { rating, completed };
  }
}

/** createOrReuseAcceptedMatch's work; `now` stamps respondedAt. */
async function acceptedMatchInTx(
  tx: Tx,
  input: AcceptedMatchInput,
  now: Date,
): Promise<MatchWithRelations & { becameAccepted: boolean }> {
  if (input.userAId === input.userBId)
    throw new AppError('MATCH_SELF', { message: 'A match needs two different users' });
  // a blocked pair never gets a match (serialised with the block by the pair's lock)
  await lockUserPair(tx, input.userAId, input.userBId);
  if (await isBlockedPair(tx, input.userAId, input.userBId)) throw new AppError('USER_BLOCKED');
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
  const becameAccepted = !existing || existing.status === 'pending';
  let matchId: number;
  if (existing) {
    matchId = existing.id;
    const data: Prisma.MatchUncheckedUpdateInput = {};
    if (existing.status === 'pending') Object.assign(data, { status: 'accepted', respondedAt: now });
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
        respondedAt: now,
      },
    });
    matchId = created.id;
  }
  await createPrivateRoom(tx, matchId);
  const match = await tx.match.findUniqueOrThrow({ where: { id: matchId }, include: matchInclude });
  return { ...match, becameAccepted };
}

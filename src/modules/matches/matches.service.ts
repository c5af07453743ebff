import type { ChatService } from '../chat/chat.service.js';
import type { PrismaClient } from '../../generated/prisma/client.js';
import { userOf, type Actor } from '../../lib/actor.js';
import type { Clock } from '../../lib/clock.js';
import { AppError } from '../../lib/errors.js';
import { sql, toDate, type SqlReader } from '../../lib/sql.js';
import { DELETED_USER_SUMMARY } from '../../lib/user-summary.js';
import type { Notifier } from '../../realtime/notifier.js';
import { rooms } from '../../realtime/types.js';
import type { ActivityLogService } from '../activity-log/activity-log.service.js';
import {
  findMemberMatch,
  matchInclude,
  notification,
  toMatchView,
  TX_OPTIONS,
  type MatchWithRelations,
  type Tx,
} from './match-records.js';
import { acceptedMatchInTx, type AcceptedMatchInput } from './accepted-match.js';
import type { ListMatchesInput, MatchSlugInput } from './matches.schemas.js';
import { matchView, type MatchView, type MatchWithRatedView } from './matches.views.js';

export type { MatchView };
export { matchInclude, toMatchView, type MatchWithRelations } from './match-records.js';
export type { AcceptedMatchInput } from './accepted-match.js';

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
     (SELECT coalesce(json_agg(${matchView.json()} ORDER BY m."createdAt" DESC, m.id DESC), '[]'::json)
      FROM "Match" m
      JOIN "Event" e ON e.id = m."eventId"
      JOIN "User" u ON u.id = CASE WHEN m."user1Id" = $1 THEN m."user2Id" ELSE m."user1Id" END
      LEFT JOIN "ChatRoom" r ON r."matchId" = m.id
      WHERE (m."user1Id" = $1 OR m."user2Id" = $1)
        AND ($2::text IS NULL OR m."eventId" = (SELECT id FROM ev))
        AND ($3::text IS NULL OR m.status = $3::text)) AS matches`,
  { perCaller: 1 },
);

interface MatchListRow {
  eventFound: boolean;
  matches: (Omit<MatchView, 'createdAt' | 'respondedAt'> & { createdAt: string; respondedAt: string | null })[];
}

/** A match removed by an account deletion: whom to tell after the commit. */
export interface RemovedMatch {
  id: number;
  slug: string;
  event: { slug: string; name: string };
  /** the other member */
  partnerId: number;
}

/** What the matches service uses (built by src/container.ts). */
export interface MatchesDeps {
  db: PrismaClient;
  sql: SqlReader;
  notifier: Notifier;
  audit: ActivityLogService;
  /** the chat feature creates the private room of an accepted match */
  chat: Pick<ChatService, 'createPrivateRoom'>;
  clock: Clock;
}

/**
 * Matches between two participants of an event: the lists, deletion, and the writes other
 * features ask for (requests and their acceptance are match-requests.service.ts') (a matching suggestion accepted, a block, an account deletion). The
 * matches feature owns the tables Match and Rating (match-ratings.service.ts); no other feature
 * writes them. The private room of a match is the chat feature's (ChatService.createPrivateRoom).
 */
export class MatchesService {
  constructor(private readonly deps: MatchesDeps) {}

  /** The actor's matches, newest first, optionally of one event (unknown slug 404) and status; one statement. */
  async listMatches(actor: Actor, input: ListMatchesInput): Promise<MatchView[]> {
    const userId = userOf(actor).id;
    const [row] = await this.deps.sql.rows<MatchListRow>(matchList, [
      userId,
      input.eventSlug ?? null,
      input.status ?? null,
    ]);
    if (!row.eventFound) throw new AppError('EVENT_NOT_FOUND');
    return row.matches.map((m) => ({ ...m, createdAt: toDate(m.createdAt), respondedAt: toDate(m.respondedAt) }));
  }

  /** One match of the actor with `hasRated`; 404 unless the actor is one of its two members. */
  async getMatch(actor: Actor, input: MatchSlugInput): Promise<MatchWithRatedView> {
    const userId = userOf(actor).id;
    const match = await findMemberMatch(this.deps.db, input.slug, userId);
    const rated = await this.deps.db.rating.count({ where: { matchId: match.id, raterId: userId } });
    return { ...toMatchView(match, userId), hasRated: rated > 0 };
  }

  /**
   * Deletes a match on behalf of either member (404 otherwise): a pending match deleted by its
   * target is a rejection, anything else a cancellation. The match goes away with its private
   * room and messages (cascade); ratings stay with matchId null. After the commit the other
   * member gets `match_cancelled` and both members' sockets leave the private room. Audited as
   * match/match_reject or match/match_cancel.
   */
  async deleteMatch(actor: Actor, input: MatchSlugInput): Promise<{ action: 'rejected' | 'cancelled' }> {
    const userId = userOf(actor).id;
    const match = await this.deps.db.$transaction(async (tx) => {
      const found = await findMemberMatch(tx, input.slug, userId);
      const deleted = await tx.match.deleteMany({ where: { id: found.id } });
      if (deleted.count === 0) throw new AppError('MATCH_NOT_FOUND');
      return found;
    }, TX_OPTIONS);
    return this.announceDeletion(actor, { match, byUserId: userId });
  }

  // -------------------------------------------------------------------------------------
  // Writes other features ask for (matching, moderation, privacy), inside their transaction

  /**
   * Inside the caller's transaction (`input.tx`; matching's accepted suggestion): the match
   * between the two users at the event, accepted and with its private room. Checks: two
   * different users 400 MATCH_SELF → no block between them 403 USER_BLOCKED (under the pair's
   * lock, which a block takes too). An existing match is reused (accepted if pending, room
   * created if missing, linked to the suggestion if it had none); otherwise an accepted match
   * with source 'auto' is created. Serialised with createMatch (match-requests.service.ts) by the pair's advisory lock, so
   * it never collides with a concurrent manual request. `becameAccepted`: this call moved the
   * pair to accepted (a new match, or a pending one accepted). The caller audits and notifies.
   */
  createOrReuseAcceptedMatch(
    _actor: Actor,
    input: AcceptedMatchInput,
  ): Promise<MatchWithRelations & { becameAccepted: boolean }> {
    return acceptedMatchInTx(input, this.deps.clock.now(), (tx, matchId) =>
      this.deps.chat.createPrivateRoom(_actor, { tx, matchId }),
    );
  }

  /**
   * The accepted match of two users at an event, either direction, as matching's answer to an
   * accepted suggestion shows it (`{ id, slug, status, roomId }`); null when there is none.
   */
  async acceptedMatchOfPair(_actor: Actor, input: { eventId: number; userAId: number; userBId: number }) {
    const { eventId, userAId: a, userBId: b } = input;
    const m = await this.deps.db.match.findFirst({
      where: {
        eventId,
        status: 'accepted',
        OR: [
          { user1Id: a, user2Id: b },
          { user1Id: b, user2Id: a },
        ],
      },
      select: { id: true, slug: true, status: true, chatRoom: { select: { id: true } } },
    });
    return m ? { id: m.id, slug: m.slug, status: m.status, roomId: m.chatRoom?.id ?? null } : null;
  }

  /**
   * Inside the caller's transaction (`input.tx`; a block, under the pair's lock): deletes every
   * `pending` or `accepted` match of the two users, at any event, with their private rooms and
   * messages (cascade). Completed matches stay. The caller announces each one after the commit
   * (announceDeletion), exactly as DELETE /matches/:slug by `userA` would.
   */
  async deletePairMatchesInTx(
    _actor: Actor,
    input: { tx: Tx; userA: number; userB: number },
  ): Promise<MatchWithRelations[]> {
    const { tx, userA, userB } = input;
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
    actor: Actor,
    input: { match: MatchWithRelations; byUserId: number },
  ): Promise<{ action: 'rejected' | 'cancelled' }> {
    const { match, byUserId } = input;
    const { notifier, audit } = this.deps;
    const rejected = match.status === 'pending' && match.user2Id === byUserId;
    const byUser1 = match.user1Id === byUserId;
    notifier.toUser(
      byUser1 ? match.user2Id : match.user1Id,
      'match_cancelled',
      notification(match, byUser1 ? match.user1 : match.user2),
    );
    // Sockets still in the private room stop receiving anything of a match that no longer exists.
    for (const member of [match.user1Id, match.user2Id]) notifier.removeUserFromRoom(member, rooms.match(match.id));
    await audit.record(actor, {
      category: 'match',
      action: rejected ? 'match_reject' : 'match_cancel',
      resource: `match:${match.slug}`,
      metadata: { matchId: match.id, previousStatus: match.status },
    });
    return { action: rejected ? 'rejected' : 'cancelled' };
  }

  /**
   * Account deletion (src/modules/privacy), inside the caller's transaction (`input.tx`): every
   * match of the user, either side and any status, goes as DELETE /matches/:slug removes one
   * (private room, its messages and the transfer records by cascade; ratings stay with matchId
   * null). Answers what `notifyRemovedMatches` tells the partners after the commit.
   */
  async removeMatchesOf(_actor: Actor, input: { tx: Tx; userId: number }): Promise<RemovedMatch[]> {
    const { tx, userId } = input;
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
  notifyRemovedMatches(_actor: Actor, input: { removed: RemovedMatch[]; deletedUserId: number }): void {
    const { notifier } = this.deps;
    for (const match of input.removed) {
      notifier.toUser(match.partnerId, 'match_cancelled', {
        matchSlug: match.slug,
        event: match.event,
        from: { ...DELETED_USER_SUMMARY },
      });
      for (const member of [match.partnerId, input.deletedUserId])
        notifier.removeUserFromRoom(member, rooms.match(match.id));
    }
  }
}

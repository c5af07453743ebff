import type { PrismaClient } from '../../generated/prisma/client.js';
import { userOf, type Actor } from '../../lib/actor.js';
import type { UsernameParam } from './moderation.schemas.js';
import { AppError } from '../../lib/errors.js';
import type { MatchesService, MatchWithRelations } from '../matches/matches.service.js';
import { lockUserPair } from './blocks.views.js';
import { toBlockView, userSummarySelect, type BlockView, type SummaryRow } from './moderation.views.js';

/** Long enough for a block that waits behind match requests of the same pair. */
const TX_OPTIONS = { maxWait: 10_000, timeout: 15_000 } as const;

export interface BlocksDeps {
  db: PrismaClient;
  /** deletes and announces the pair's open matches (as DELETE /matches/:slug) */
  matches: Pick<MatchesService, 'deletePairMatchesInTx' | 'announceDeletion'>;
}

/**
 * Blocks between users (table UserBlock, owned here; the effects are read through
 * blocks.views.ts by matches, chat, users, webrtc and matching). A block is silent: nothing tells
 * the blocked user, and blocks are not written to the activity log (the deleted matches are,
 * as match_reject / match_cancel).
 */
export class BlocksService {
  constructor(private readonly deps: BlocksDeps) {}

  /**
   * POST /users/:username/block. Checks: unknown username (regardless of case) 404
   * USER_NOT_FOUND → oneself 400 BLOCK_SELF. In one transaction under the pair's lock (which
   * match requests and private messages of the pair take too): the block is inserted (an
   * existing one is kept, with its first `blockedAt`) and every pending or accepted match of the
   * pair, at any event, is deleted. After the commit each deletion is announced as if the blocker
   * had deleted the match. `created` is false when the block existed already. The blocker is the
   * actor's user (401 AUTH_REQUIRED without one), as for unblock and list.
   */
  async block(actor: Actor, { username }: UsernameParam): Promise<{ created: boolean; block: BlockView }> {
    const blockerId = userOf(actor).id;
    const target = await this.findUser(username);
    if (target.id === blockerId) throw new AppError('BLOCK_SELF');
    const { created, blockedAt, deleted } = await this.deps.db.$transaction(async (tx) => {
      await lockUserPair(tx, blockerId, target.id);
      const inserted = await tx.$queryRaw<{ createdAt: Date }[]>`
        INSERT INTO "UserBlock" ("blockerId", "blockedId") VALUES (${blockerId}, ${target.id})
        ON CONFLICT ("blockerId", "blockedId") DO NOTHING
        RETURNING "createdAt"`;
      const existing =
        inserted[0] ??
        (await tx.userBlock.findUniqueOrThrow({ where: { blockerId_blockedId: { blockerId, blockedId: target.id } } }));
      const removed: MatchWithRelations[] = await this.deps.matches.deletePairMatchesInTx(actor, {
        tx,
        userA: blockerId,
        userB: target.id,
      });
      return { created: inserted.length > 0, blockedAt: existing.createdAt, deleted: removed };
    }, TX_OPTIONS);
    for (const match of deleted) await this.deps.matches.announceDeletion(actor, { match, byUserId: blockerId });
    return { created, block: toBlockView(target, blockedAt) };
  }

  /** DELETE /users/:username/block: removes the caller's block if any (unknown username 404). Removed matches stay removed. */
  async unblock(actor: Actor, { username }: UsernameParam): Promise<void> {
    const blockerId = userOf(actor).id;
    const target = await this.findUser(username);
    await this.deps.db.userBlock.deleteMany({ where: { blockerId, blockedId: target.id } });
  }

  /** GET /users/me/blocks: the caller's own blocks, newest first (never who blocked the caller). */
  async list(actor: Actor, _input: Record<string, never> = {}): Promise<BlockView[]> {
    const blockerId = userOf(actor).id;
    const rows = await this.deps.db.userBlock.findMany({
      where: { blockerId },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      select: { createdAt: true, blocked: { select: userSummarySelect } },
    });
    return rows.map((r) => toBlockView(r.blocked, r.createdAt));
  }

  /** The user of a username regardless of case (index User_username_lower_key); 404 USER_NOT_FOUND. */
  private async findUser(username: string): Promise<SummaryRow> {
    const rows = await this.deps.db.$queryRaw<SummaryRow[]>`
      SELECT id, username, avatar, "firstName", "lastName" FROM "User" WHERE lower(username) = lower(${username})`;
    if (!rows[0]) throw new AppError('USER_NOT_FOUND');
    return rows[0];
  }
}

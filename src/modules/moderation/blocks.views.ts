import type { Prisma, PrismaClient } from '../../generated/prisma/client.js';

/**
 * The blocked-pair rule shared by every feature that lets two users interact (matches, private
 * chat, video hand-off, event chat, profiles). Two users are "a blocked pair" while at least one
 * UserBlock row exists between them, in either direction. The table belongs to the moderation
 * feature (blocks.service.ts); other features read it only through these helpers.
 */
type Db = Prisma.TransactionClient | PrismaClient;

/** Namespace of the transaction-scoped advisory lock of a pair of users (pg_advisory_xact_lock(int, int)). */
export const LOCK_USER_PAIR = 6003;

const pairKey = (a: number, b: number) => `${Math.min(a, b)}:${Math.max(a, b)}`;

/**
 * Serialises, inside the caller's transaction, everything that must not interleave with a block
 * of the same two users: the block itself (with the deletion of the pair's matches), a match
 * request between them, a private message between them. `shared` lets several senders of the
 * pair run side by side while still excluding a block.
 */
export async function lockUserPair(
  tx: Prisma.TransactionClient,
  a: number,
  b: number,
  mode: 'exclusive' | 'shared' = 'exclusive',
): Promise<void> {
  const key = pairKey(a, b);
  if (mode === 'shared')
    await tx.$executeRaw`SELECT pg_advisory_xact_lock_shared(${LOCK_USER_PAIR}::int, hashtext(${key}))`;
  else await tx.$executeRaw`SELECT pg_advisory_xact_lock(${LOCK_USER_PAIR}::int, hashtext(${key}))`;
}

/** True while a block exists between the two users, in either direction (index UserBlock(blockerId, blockedId)). */
export async function isBlockedPair(db: Db, a: number, b: number): Promise<boolean> {
  const rows = await db.$queryRaw<{ blocked: boolean }[]>`
    SELECT EXISTS (
      SELECT 1 FROM "UserBlock"
      WHERE ("blockerId" = ${a} AND "blockedId" = ${b}) OR ("blockerId" = ${b} AND "blockedId" = ${a})
    ) AS blocked`;
  return rows[0]?.blocked === true;
}

/**
 * SQL condition: no block between the users of the two SQL expressions, in either direction
 * (e.g. a message's author and the reader of a history). Uses the unique index
 * UserBlock(blockerId, blockedId) twice.
 */
export const notBlockedSql = (userA: string, userB: string) =>
  `NOT EXISTS (SELECT 1 FROM "UserBlock" ub WHERE (ub."blockerId" = ${userA} AND ub."blockedId" = ${userB}) OR (ub."blockerId" = ${userB} AND ub."blockedId" = ${userA}))`;

/** SQL of an int[]: the users in a blocked pair with the user of the SQL expression (either direction). */
export const blockedPeersSql = (user: string) =>
  `ARRAY(SELECT "blockedId" FROM "UserBlock" WHERE "blockerId" = ${user} UNION SELECT "blockerId" FROM "UserBlock" WHERE "blockedId" = ${user})`;

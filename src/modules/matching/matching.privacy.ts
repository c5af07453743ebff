import { Prisma, type PrismaClient } from '../../generated/prisma/client.js';
import { suggestionOrder, suggestionSelect } from './matching.views.js';

/**
 * Privacy (src/modules/privacy) for the recording suggestions matching owns: a user's export and
 * what an account deletion (src/modules/privacy) does to the recording suggestions the deleted
 * user records (those of the user's own heats go with the heats, by cascade). Matching owns
 * RecordingSuggestion, so the rule lives here:
 * - `pending` (pinned ones too) and `accepted` ones become `not_found` without recorder, `why`
 *   and pin, with the reason RECORDER_DELETED (same id; a later run may fill the heat);
 * - `rejected`, `removed` and `cancelled` ones are deleted: no list shows them any more.
 * Others' recording counts and balances count only what stays `accepted`, so they may drop.
 */
export const RECORDER_DELETED = 'RECORDER_DELETED';

const KEPT_AS_UNFILLED = ['pending', 'accepted'];
const DROPPED = ['rejected', 'removed', 'cancelled'];

/** Inside the deletion's transaction; answers how many suggestions were kept (as not_found) and deleted. */
export async function releaseDeletedRecorder(tx: Prisma.TransactionClient, recorderId: number, now: Date) {
  const deleted = await tx.recordingSuggestion.deleteMany({ where: { recorderId, status: { in: DROPPED } } });
  const kept = await tx.recordingSuggestion.updateMany({
    where: { recorderId, status: { in: KEPT_AS_UNFILLED } },
    data: {
      status: 'not_found',
      recorderId: null,
      why: Prisma.DbNull,
      pinned: false,
      unfilledReason: RECORDER_DELETED,
      updatedAt: now,
    },
  });
  return { kept: kept.count, deleted: deleted.count };
}

const exportSelect = { ...suggestionSelect, event: { select: { id: true, slug: true, name: true } } } as const;

/**
 * The data export: every suggestion of the user's heats (`asDancer`) and every one the user
 * records (`asRecorder`), any status, each the suggestion object plus its event.
 */
export async function suggestionsOf(db: PrismaClient, userId: number) {
  const [asDancer, asRecorder] = await Promise.all([
    db.recordingSuggestion.findMany({
      where: { dancerId: userId },
      select: exportSelect,
      orderBy: [{ eventId: 'asc' }, ...suggestionOrder],
    }),
    db.recordingSuggestion.findMany({
      where: { recorderId: userId },
      select: exportSelect,
      orderBy: [{ eventId: 'asc' }, ...suggestionOrder],
    }),
  ]);
  return { asDancer, asRecorder };
}

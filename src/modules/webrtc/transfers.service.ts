import { Prisma, type PrismaClient } from '../../generated/prisma/client.js';
import { userSummarySelect } from '../../lib/user-summary.js';
import type { TransferPayload } from '../../realtime/types.js';
import { userOf, type Actor } from '../../lib/actor.js';
import type { Clock } from '../../lib/clock.js';
import { AppError } from '../../lib/errors.js';
import type { Notifier } from '../../realtime/notifier.js';
import type { MatchAccess } from '../matches/match-access.js';
import type { CreateTransferInput, MatchTransfersInput, UpdateTransferInput } from './webrtc.schemas.js';

/** GET /matches/:slug/transfers answers the newest records only. */
export const TRANSFER_LIST_LIMIT = 100;

/** Transfers with status `offered` per match, both directions together. */
export const MAX_OPEN_TRANSFERS = 10;

const transferInclude = {
  match: { select: { slug: true } },
  sender: { select: userSummarySelect },
  receiver: { select: userSummarySelect },
} as const;

type TransferRow = Prisma.VideoTransferGetPayload<{ include: typeof transferInclude }>;

function toTransfer(row: TransferRow): TransferPayload {
  return {
    id: row.id,
    matchSlug: row.match.slug,
    sender: row.sender,
    receiver: row.receiver,
    fileName: row.fileName,
    size: Number(row.size),
    sha256: row.sha256,
    status: row.status as TransferPayload['status'],
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    finishedAt: row.finishedAt,
  };
}

/** What the transfer records use (built by src/container.ts). */
export interface TransfersServiceDeps {
  db: PrismaClient;
  /** the match reads of the hand-off (the matches feature owns `Match`) */
  matches: Pick<MatchAccess, 'member' | 'handoff' | 'lock'>;
  clock: Clock;
  /** `transfer_updated` to both members */
  notifier: Pick<Notifier, 'toUser'>;
}

/** Records of browser-to-browser video hand-offs. Nothing of the file reaches the service. */
export class TransfersService {
  constructor(private readonly deps: TransfersServiceDeps) {}

  /**
   * POST /matches/:slug/transfers: the caller offers a file to the other member. Check order:
   * membership (404 "Match not found"), match accepted or completed (400), no block between the
   * members (403 USER_BLOCKED), at most MAX_OPEN_TRANSFERS offered ones in the match (429
   * TOO_MANY_OPEN_TRANSFERS, counted under the match row's lock, so parallel offers cannot pass
   * together). Both members get
   * `transfer_updated` after the insert.
   */
  async create(actor: Actor, input: CreateTransferInput): Promise<TransferPayload> {
    const userId = userOf(actor).id;
    const match = await this.deps.matches.handoff(input.slug, userId);
    const row = await this.deps.db.$transaction(async (tx) => {
      await this.deps.matches.lock(tx, match.id);
      const open = await tx.videoTransfer.count({ where: { matchId: match.id, status: 'offered' } });
      if (open >= MAX_OPEN_TRANSFERS) throw new AppError('TOO_MANY_OPEN_TRANSFERS');
      return tx.videoTransfer.create({
        data: {
          matchId: match.id,
          senderId: userId,
          receiverId: match.other.id,
          fileName: input.fileName,
          size: BigInt(input.size),
          sha256: input.sha256,
          createdAt: this.deps.clock.now(),
        },
        include: transferInclude,
      });
    });
    return this.notifyBoth(toTransfer(row));
  }

  /**
   * PATCH /matches/:slug/transfers/:id: offered → completed (the receiver only) | failed |
   * cancelled (either member). Check order: membership (404 "Match not found"), transfer of
   * this match (404 "Transfer not found"), completer is the receiver (403), still offered
   * (400). The change is conditional (status = 'offered'), so of two racing updates one wins.
   */
  async update(actor: Actor, input: UpdateTransferInput): Promise<TransferPayload> {
    const userId = userOf(actor).id;
    const { id } = input;
    const match = await this.deps.matches.member(input.slug, userId);
    const { db } = this.deps;
    const found = await db.videoTransfer.findFirst({
      where: { id, matchId: match.id },
      select: { receiverId: true, status: true },
    });
    if (!found) throw new AppError('TRANSFER_NOT_FOUND');
    if (input.status === 'completed' && found.receiverId !== userId) throw new AppError('NOT_TRANSFER_RECEIVER');
    const now = this.deps.clock.now();
    const updated = await db.videoTransfer.updateMany({
      where: { id, status: 'offered' },
      data: { status: input.status, finishedAt: now, updatedAt: now },
    });
    if (updated.count === 0) throw new AppError('TRANSFER_NOT_OFFERED');
    const row = await db.videoTransfer.findUniqueOrThrow({ where: { id }, include: transferInclude });
    return this.notifyBoth(toTransfer(row));
  }

  /** GET /matches/:slug/transfers: members only (404 otherwise), newest first, at most 100. */
  async list(actor: Actor, input: MatchTransfersInput): Promise<TransferPayload[]> {
    const match = await this.deps.matches.member(input.slug, userOf(actor).id);
    const rows = await this.deps.db.videoTransfer.findMany({
      where: { matchId: match.id },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: TRANSFER_LIST_LIMIT,
      include: transferInclude,
    });
    return rows.map(toTransfer);
  }

  /** The data export (src/modules/privacy): every record where the user is sender or receiver, newest first, no cap. */
  async listOfUser(_actor: Actor, input: { userId: number }): Promise<TransferPayload[]> {
    const { userId } = input;
    const rows = await this.deps.db.videoTransfer.findMany({
      where: { OR: [{ senderId: userId }, { receiverId: userId }] },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      include: transferInclude,
    });
    return rows.map(toTransfer);
  }

  private notifyBoth(transfer: TransferPayload): TransferPayload {
    this.deps.notifier.toUser(transfer.sender.id, 'transfer_updated', transfer);
    this.deps.notifier.toUser(transfer.receiver.id, 'transfer_updated', transfer);
    return transfer;
  }
}

import type { PrismaClient } from '../../generated/prisma/client.js';
import type { ServerToClientEvents, WebrtcSignalInput } from '../../realtime/types.js';
import { TokenBucketLimiter } from '../../lib/flood-limit.js';
import { iceServersFor, type IceConfig, type IceServersView } from './ice-servers.js';
import { findHandoffMatch, HANDOFF_STATUSES } from './match-access.js';
import { webrtcErrors } from './webrtc.errors.js';

/** Sends one event to every socket of a user (`user_<id>`); never throws. */
export type Notify = <E extends keyof ServerToClientEvents>(
  userId: number,
  event: E,
  ...args: Parameters<ServerToClientEvents[E]>
) => void;

export interface Actor {
  id: number;
}

/**
 * Signal flood limit per user (all of the user's sockets share it): a token bucket of 100
 * refilled at 50 per second. Trickle ICE is bursty (an offer, an answer and 5-30 candidates
 * within a second, more on an ICE restart), so the burst is generous; the steady rate is far
 * above any real hand-off and bounds what one misbehaving client can push through the relay.
 */
export const SIGNAL_LIMIT = { perSecond: 50, burst: 100 } as const;

/**
 * Relayed signal bytes per match (both members together; the serialized `data`): 256 KiB in a
 * burst, refilled at 64 KiB per second. A whole hand-off (two 16 KB descriptions and a few dozen
 * candidates) needs well under 100 KiB, while every relayed byte is sent again to each of the
 * partner's sockets (up to 20), so the budget bounds what one match can make the service send.
 */
export const SIGNAL_BYTES_PER_MATCH = { perSecond: 64 * 1024, burst: 256 * 1024 } as const;

export interface WebrtcServiceDeps {
  prisma: PrismaClient;
  config: IceConfig;
  clock: () => Date;
  notify: Notify;
  signalLimit?: { perSecond: number; burst: number };
  signalBytesPerMatch?: { perSecond: number; burst: number };
}

/** WebRTC signaling relay and ICE servers. The service never parses or stores SDP. */
export class WebrtcService {
  private readonly limiter: TokenBucketLimiter;
  /** bytes per match id */
  private readonly bytes: TokenBucketLimiter;

  constructor(private readonly deps: WebrtcServiceDeps) {
    const limit = deps.signalLimit ?? SIGNAL_LIMIT;
    this.limiter = new TokenBucketLimiter(limit.perSecond, limit.burst, () => deps.clock().getTime());
    const bytes = deps.signalBytesPerMatch ?? SIGNAL_BYTES_PER_MATCH;
    this.bytes = new TokenBucketLimiter(bytes.perSecond, bytes.burst, () => deps.clock().getTime());
  }

  /**
   * GET /webrtc/ice-servers: STUN URLs, then TURN with credentials valid for `turnTtlSeconds`, the
   * TURN entries only for a member of at least one accepted or completed match (any event): a relay
   * is for a hand-off, not for any account (docs/security-hardening.md). Others get STUN only.
   */
  async iceServers(userId: number): Promise<IceServersView> {
    const { config, prisma } = this.deps;
    const turnConfigured = config.turnUrls.length > 0 && config.turnSecret !== undefined;
    const withTurn =
      turnConfigured &&
      (await prisma.match.findFirst({
        where: { OR: [{ user1Id: userId }, { user2Id: userId }], status: { in: [...HANDOFF_STATUSES] } },
        select: { id: true },
      })) !== null;
    return iceServersFor(config, userId, this.deps.clock(), withTurn);
  }

  /**
   * Relays a parsed signal (see parseSignal) to the other member's sockets as `webrtc_signal`
   * `{ matchSlug, from, kind, data }`. Check order: flood limit (429, before any database
   * work), membership (404 "Match not found"), match accepted or completed (400), no block
   * between the members (403 USER_BLOCKED, nothing relayed), the match's byte budget (429
   * SIGNAL_RATE_LIMITED, SIGNAL_BYTES_PER_MATCH).
   * Nothing is stored; a partner without a connected socket simply receives nothing.
   */
  async relaySignal(actor: Actor, signal: WebrtcSignalInput): Promise<void> {
    if (!(await this.limiter.take(actor.id))) throw webrtcErrors.signalRateLimited();
    const match = await findHandoffMatch(this.deps.prisma, signal.matchSlug, actor.id);
    if (!this.bytes.take(match.id, Buffer.byteLength(JSON.stringify(signal.data ?? null), 'utf8')))
      throw webrtcErrors.signalBytesLimited();
    this.deps.notify(match.other.id, 'webrtc_signal', {
      matchSlug: match.slug,
      from: match.me,
      kind: signal.kind,
      data: signal.data,
    });
  }
}

import { userOf, type Actor } from '../../lib/actor.js';
import type { Clock } from '../../lib/clock.js';
import { AppError } from '../../lib/errors.js';
import { TokenBucketLimiter } from '../../lib/flood-limit.js';
import type { Notifier } from '../../realtime/notifier.js';
import type { WebrtcSignalInput } from '../../realtime/types.js';
import { iceServersFor, type IceConfig, type IceServersView } from './ice-servers.js';
import type { MatchAccess } from '../matches/match-access.js';

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

/** What the signaling relay uses (built by src/container.ts). */
export interface WebrtcServiceDeps {
  /** the match reads of the hand-off (the matches feature owns `Match`) */
  matches: Pick<MatchAccess, 'handoff' | 'hasHandoffMatch'>;
  config: IceConfig;
  clock: Clock;
  /** `webrtc_signal` to the partner's sockets */
  notifier: Pick<Notifier, 'toUser'>;
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
    this.limiter = new TokenBucketLimiter(limit.perSecond, limit.burst, () => deps.clock.now().getTime());
    const bytes = deps.signalBytesPerMatch ?? SIGNAL_BYTES_PER_MATCH;
    this.bytes = new TokenBucketLimiter(bytes.perSecond, bytes.burst, () => deps.clock.now().getTime());
  }

  /**
   * GET /webrtc/ice-servers: STUN URLs, then TURN with credentials valid for `turnTtlSeconds`, the
   * TURN entries only for a member of at least one accepted or completed match (any event): a relay
   * is for a hand-off, not for any account (docs/security-hardening.md). Others get STUN only.
   */
  async iceServers(actor: Actor, _input: Record<string, never> = {}): Promise<IceServersView> {
    const { config, matches } = this.deps;
    const userId = userOf(actor).id;
    const turnConfigured = config.turnUrls.length > 0 && config.turnSecret !== undefined;
    const withTurn = turnConfigured && (await matches.hasHandoffMatch(userId));
    return iceServersFor(config, userId, this.deps.clock.now(), withTurn);
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
    const userId = userOf(actor).id;
    if (!(await this.limiter.take(userId))) throw new AppError('SIGNAL_RATE_LIMITED');
    const match = await this.deps.matches.handoff(signal.matchSlug, userId);
    if (!this.bytes.take(match.id, Buffer.byteLength(JSON.stringify(signal.data ?? null), 'utf8')))
      throw new AppError('SIGNAL_RATE_LIMITED', { message: 'Too much signal data for this match, slow down' });
    this.deps.notifier.toUser(match.other.id, 'webrtc_signal', {
      matchSlug: match.slug,
      from: match.me,
      kind: signal.kind,
      data: signal.data,
    });
  }
}

/**
 * Why a heat stays without a recorder (pure; computed by the engine after the optimum).
 *
 * "Others" are the event's participants except the heat's dancer. At the heat's time an
 * other is *busy* when he/she dances a heat of the same competition type and slot whose
 * number or buffers (bufferBefore, bufferAfter) cover this heat's number (rules 1 and 2),
 * *directly busy* when that heat is in the heat's own division, and *free* otherwise. A free
 * other is *unavailable* when an unavailable entry covers the heat, he/she is absent, has a
 * personal cap of 0, or opted out while optOutMode is "exclude"; *available* otherwise.
 * The first reason that applies wins:
 *
 *  1. NO_OTHER_PARTICIPANT        nobody else takes part in the event.
 *  2. ALL_CANDIDATES_DANCING      every other is busy, each because of a heat in the same
 *                                 division (more participants or other heat numbers help).
 *  3. SLOT_CONFLICT               every other is busy, but some only because the schedule
 *                                 puts another division in the same slot (splitting it helps).
 *  4. ALL_CANDIDATES_UNAVAILABLE  every free other is unavailable.
 *  5. ALL_CANDIDATES_REJECTED     every available free other has rejected recording this heat
 *                                 (or an admin removed the pair, or the two blocked each other).
 *  6. ONLY_OPTED_OUT_AT_CAP       the available free others who may take it all opted out of
 *                                 recording, and all already record their maximum.
 *  7. ALL_CANDIDATES_AT_CAP       the available free others who may take it all already
 *                                 record their maximum (min(personal, event); accepted and
 *                                 pinned recordings included).
 *
 * 6 and 7 count the recordings of the final plan: the plan covers as many heats as
 * possible, so a free available candidate with room left cannot exist next to an open heat
 * (it would be a way to cover one more); that is checked here and is a bug if it ever fails.
 */
import type { EngineHeat, EngineParticipant } from './matching.engine.js';

export const UNFILLED_REASONS = [
  'NO_OTHER_PARTICIPANT',
  'ALL_CANDIDATES_DANCING',
  'SLOT_CONFLICT',
  'ALL_CANDIDATES_UNAVAILABLE',
  'ALL_CANDIDATES_REJECTED',
  'ONLY_OPTED_OUT_AT_CAP',
  'ALL_CANDIDATES_AT_CAP',
] as const;
export type UnfilledReason = (typeof UNFILLED_REASONS)[number];

export interface UnfilledContext {
  /** Sorted by userId. */
  participants: EngineParticipant[];
  /** Time key of a heat (competition type, slot, number). */
  timeKeyOf: (heat: EngineHeat) => string;
  /** Time key -> users busy then (dancing at that key or within their buffers of it). */
  busy: Map<string, Set<number>>;
  /** Same as `busy` with each division on its own (no slot grouping). */
  busyInDivision: Map<string, Set<number>>;
  /** Time key -> users with an unavailable entry covering it. */
  unavailable: Map<string, Set<number>>;
  /** Division-level key of a heat (competition type, division, number). */
  divisionKeyOf: (heat: EngineHeat) => string;
  forbiddenOf: Map<number, Set<number>>;
  /** Recordings per user in the final plan, accepted and pinned ones included. */
  load: Map<number, number>;
  /** A user's cap in this run: 0 when absent, excluded as opted out or personal 0. */
  capOf: (userId: number) => number;
}

/** Free and available participants at one time key, summarised once for every heat at that key. */
interface FreeAtKey {
  /** Free participants (not busy), the dancer included when free (never: a dancer is busy at his/her heat). */
  count: number;
  /** Free participants who can take the heat (cap > 0, no unavailable entry covering it). */
  available: EngineParticipant[];
  /** Available participants who did not opt out. */
  willing: number;
  /** Available participants below their cap (empty next to an open heat unless they rejected it). */
  withRoom: EngineParticipant[];
}

/** Reasons for the given unassigned heats, in the same order. */
export function explainUnfilled(
  heats: EngineHeat[],
  ctx: UnfilledContext,
): { heatId: number; reason: UnfilledReason }[] {
  const byId = new Map(ctx.participants.map((p) => [p.userId, p]));
  const busyCount = new Map<string, number>();
  const countBusy = (sets: Map<string, Set<number>>, key: string) => {
    const cacheKey = `${sets === ctx.busy ? 's' : 'd'}${key}`;
    let n = busyCount.get(cacheKey);
    if (n === undefined) {
      n = 0;
      for (const u of sets.get(key) ?? []) if (byId.has(u)) n++;
      busyCount.set(cacheKey, n);
    }
    return n;
  };
  const freeAt = new Map<string, FreeAtKey>();
  return heats.map((h) => {
    const self = byId.has(h.userId) ? 1 : 0; // the dancer is busy at his/her own heat
    const others = byId.size - self;
    const key = ctx.timeKeyOf(h);
    if (others === 0) return { heatId: h.id, reason: 'NO_OTHER_PARTICIPANT' };
    if (countBusy(ctx.busy, key) - self === others) {
      const direct = countBusy(ctx.busyInDivision, ctx.divisionKeyOf(h)) - self;
      return { heatId: h.id, reason: direct === others ? 'ALL_CANDIDATES_DANCING' : 'SLOT_CONFLICT' };
    }
    let free = freeAt.get(key);
    if (!free) freeAt.set(key, (free = summariseFree(ctx, ctx.busy.get(key), ctx.unavailable.get(key))));
    if (free.available.length === 0) return { heatId: h.id, reason: 'ALL_CANDIDATES_UNAVAILABLE' };
    return { heatId: h.id, reason: reasonAmongAvailable(h, free, ctx) };
  });
}

function summariseFree(
  ctx: UnfilledContext,
  busy: Set<number> | undefined,
  unavailable: Set<number> | undefined,
): FreeAtKey {
  const out: FreeAtKey = { count: 0, available: [], willing: 0, withRoom: [] };
  for (const p of ctx.participants) {
    if (busy?.has(p.userId)) continue;
    out.count++;
    const cap = ctx.capOf(p.userId);
    if (cap === 0 || unavailable?.has(p.userId)) continue;
    out.available.push(p);
    if (!p.optOut) out.willing++;
    if ((ctx.load.get(p.userId) ?? 0) < cap) out.withRoom.push(p);
  }
  return out;
}

function reasonAmongAvailable(h: EngineHeat, free: FreeAtKey, ctx: UnfilledContext): UnfilledReason {
  const rejected = ctx.forbiddenOf.get(h.id) ?? new Set<number>();
  let rejectedAvailable = 0;
  let rejectedWilling = 0;
  for (const p of free.available) {
    if (!rejected.has(p.userId)) continue;
    rejectedAvailable++;
    if (!p.optOut) rejectedWilling++;
  }
  if (rejectedAvailable === free.available.length) return 'ALL_CANDIDATES_REJECTED';
  const withRoom = free.withRoom.find((p) => !rejected.has(p.userId));
  if (withRoom)
    throw new Error(`heat ${h.id} left open although recorder ${withRoom.userId} has room (coverage is not maximal)`);
  return free.willing === rejectedWilling ? 'ONLY_OPTED_OUT_AT_CAP' : 'ALL_CANDIDATES_AT_CAP';
}

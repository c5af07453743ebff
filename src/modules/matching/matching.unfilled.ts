/**
 * Why a heat stays without a recorder (pure; computed by the engine after the optimum).
 *
 * "Others" are the event's participants except the heat's dancer. At the heat's time an
 * other is *busy* when he/she dances a heat of the same competition type and slot with the
 * same number or the number right before (rules 1 and 2), *directly busy* when that heat is
 * in the heat's own division, and *free* otherwise. The first reason that applies wins:
 *
 *  1. NO_OTHER_PARTICIPANT     nobody else takes part in the event.
 *  2. ALL_CANDIDATES_DANCING   every other dances in this heat or the one before it, in the
 *                              same division (more participants or other heat numbers help).
 *  3. SLOT_CONFLICT            every other is busy, but some only because the schedule puts
 *                              another division in the same slot (splitting the slot helps).
 *  4. ALL_CANDIDATES_REJECTED  every free other has rejected recording this heat.
 *  5. ONLY_OPTED_OUT_AT_CAP    the free others who have not rejected it all opted out of
 *                              recording, and all already record the maximum.
 *  6. ALL_CANDIDATES_AT_CAP    the free others who have not rejected it all already record
 *                              the maximum (3 by default, accepted recordings included).
 *
 * 5 and 6 count the recordings of the final plan: the plan covers as many heats as
 * possible, so a free candidate with room left cannot exist next to an open heat (it would
 * be a way to cover one more); that is checked here and is a bug if it ever fails.
 */
import type { EngineHeat, EngineParticipant } from './matching.engine.js';

export const UNFILLED_REASONS = [
  'NO_OTHER_PARTICIPANT',
  'ALL_CANDIDATES_DANCING',
  'SLOT_CONFLICT',
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
  /** Time key -> users busy then (dancing at that key or the one right before). */
  busy: Map<string, Set<number>>;
  /** Same as `busy` with each division on its own (no slot grouping). */
  busyInDivision: Map<string, Set<number>>;
  /** Division-level key of a heat (competition type, division, number). */
  divisionKeyOf: (heat: EngineHeat) => string;
  forbiddenOf: Map<number, Set<number>>;
  /** Recordings per user in the final plan, accepted ones included. */
  load: Map<number, number>;
  cap: number;
}

/** Free participants at one time key, summarised once for every heat at that key. */
interface FreeAtKey {
  count: number;
  /** Free participants who did not opt out. */
  willing: number;
  /** Free participants below the cap (empty next to an open heat unless they rejected it). */
  withRoom: EngineParticipant[];
}

/** Reasons for the given unassigned heats, in the same order. */
export function explainUnfilled(heats: EngineHeat[], ctx: UnfilledContext): { heatId: number; reason: UnfilledReason }[] {
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
    if (!free) freeAt.set(key, (free = summariseFree(ctx, ctx.busy.get(key))));
    return { heatId: h.id, reason: reasonAmongFree(h, free, byId, ctx) };
  });
}

function summariseFree(ctx: UnfilledContext, busy: Set<number> | undefined): FreeAtKey {
  const out: FreeAtKey = { count: 0, willing: 0, withRoom: [] };
  for (const p of ctx.participants) {
    if (busy?.has(p.userId)) continue;
    out.count++;
    if (!p.optOut) out.willing++;
    if ((ctx.load.get(p.userId) ?? 0) < ctx.cap) out.withRoom.push(p);
  }
  return out;
}

function reasonAmongFree(h: EngineHeat, free: FreeAtKey, byId: Map<number, EngineParticipant>, ctx: UnfilledContext): UnfilledReason {
  const rejected = ctx.forbiddenOf.get(h.id) ?? new Set<number>();
  const busy = ctx.busy.get(ctx.timeKeyOf(h));
  let rejectedFree = 0;
  let rejectedWilling = 0;
  for (const u of rejected) {
    const p = byId.get(u);
    if (!p || u === h.userId || busy?.has(u)) continue;
    rejectedFree++;
    if (!p.optOut) rejectedWilling++;
  }
  if (rejectedFree === free.count) return 'ALL_CANDIDATES_REJECTED';
  const withRoom = free.withRoom.find((p) => !rejected.has(p.userId));
  if (withRoom) throw new Error(`heat ${h.id} left open although recorder ${withRoom.userId} has room (coverage is not maximal)`);
  return free.willing === rejectedWilling ? 'ONLY_OPTED_OUT_AT_CAP' : 'ALL_CANDIDATES_AT_CAP';
}

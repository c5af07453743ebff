/**
 * The greedy pass the matching service used before the min-cost-flow engine (benchmarks
 * only): heats in id order; each takes the best free candidate with room left, ranked by
 * opt-out last, then same city, same country, anyone, then lowest load, then lowest id.
 * Same rules as the engine (collision and buffer in the same slot, cap, rejected pairs,
 * accepted heats fixed), so the two can be compared heat for heat.
 */
import {
  buildSlotMap,
  timeKey,
  type EngineInput,
  type EngineParticipant,
} from '../../src/modules/matching/matching.engine.js';

const norm = (v: string | null) => (v !== null && v.trim() !== '' ? v.trim().toLowerCase() : null);

/** 0 same city, 1 same country, 2 anyone. */
function locationClass(dancer: EngineParticipant | undefined, recorder: EngineParticipant): number {
  if (dancer && norm(dancer.city) !== null && norm(dancer.city) === norm(recorder.city)) return 0;
  if (dancer && norm(dancer.country) !== null && norm(dancer.country) === norm(recorder.country)) return 1;
  return 2;
}

export function greedyMatching(input: EngineInput): { covered: number; heats: number } {
  const cap = input.maxRecordingsPerPerson ?? 3;
  const slotOf = buildSlotMap(input.slots);
  const busy = new Map<string, Set<number>>();
  for (const h of input.heats)
    for (const key of [timeKey(h, slotOf), timeKey({ ...h, heatNumber: h.heatNumber + 1 }, slotOf)]) {
      if (!busy.has(key)) busy.set(key, new Set());
      busy.get(key)!.add(h.userId);
    }
  const load = new Map<number, number>();
  const fixedHeats = new Set<number>();
  for (const f of input.fixed) {
    fixedHeats.add(f.heatId);
    load.set(f.recorderId, (load.get(f.recorderId) ?? 0) + 1);
  }
  const rejected = new Set(input.forbidden.map((f) => `${f.heatId}:${f.recorderId}`));
  const people = [...input.participants].sort((a, b) => a.userId - b.userId);
  const byId = new Map(people.map((p) => [p.userId, p]));
  let covered = 0;
  let heats = 0;
  for (const heat of [...input.heats].sort((a, b) => a.id - b.id)) {
    if (fixedHeats.has(heat.id)) continue;
    heats++;
    const busyNow = busy.get(timeKey(heat, slotOf))!;
    const dancer = byId.get(heat.userId);
    let best: { p: EngineParticipant; score: number[] } | undefined;
    for (const p of people) {
      if (busyNow.has(p.userId) || (load.get(p.userId) ?? 0) >= cap || rejected.has(`${heat.id}:${p.userId}`)) continue;
      const score = [p.optOut ? 1 : 0, locationClass(dancer, p), load.get(p.userId) ?? 0, p.userId];
      if (!best || lexLess(score, best.score)) best = { p, score };
    }
    if (!best) continue;
    covered++;
    load.set(best.p.userId, (load.get(best.p.userId) ?? 0) + 1);
  }
  return { covered, heats };
}

function lexLess(a: number[], b: number[]): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] < b[i];
  return false;
}

/**
 * TEMPORARY greedy matching engine with the fixed interface of the real engine (which
 * replaces this file). Rules: collision, buffer (n+1 in the same slot), cap, forbidden
 * pairs; preference opt-out last, then same city, same country, lowest load, lowest id.
 */
export interface EngineParticipant { userId: number; city: string | null; country: string | null; optOut: boolean }
export interface EngineHeat { id: number; userId: number; divisionId: number; competitionTypeId: number; heatNumber: number; role: string | null }
export interface ScheduleSlot { order: number; divisionIds: number[] }
export interface EngineInput {
  participants: EngineParticipant[];
  heats: EngineHeat[];
  slots: ScheduleSlot[] | null;
  fixed: { heatId: number; recorderId: number }[];
  forbidden: { heatId: number; recorderId: number }[];
  maxRecordingsPerPerson?: number;
}
export interface EngineAssignment { heatId: number; recorderId: number }
export interface EngineResult {
  assignments: EngineAssignment[];
  unassigned: number[];
  stats: { heats: number; covered: number; optOutUses: number; sameCity: number; sameCountry: number; maxLoad: number };
}

export function buildSlotMap(slots: ScheduleSlot[] | null): Map<number, number> {
  const map = new Map<number, number>();
  for (const slot of slots ?? []) {
    const key = Math.min(...slot.divisionIds);
    for (const d of slot.divisionIds) map.set(d, Math.min(key, map.get(d) ?? key));
  }
  return map;
}

export function timeKey(heat: Pick<EngineHeat, 'divisionId' | 'competitionTypeId' | 'heatNumber'>, slotOf: Map<number, number>): string {
  return `${heat.competitionTypeId}:${slotOf.get(heat.divisionId) ?? heat.divisionId}:${heat.heatNumber}`;
}

const norm = (v: string | null) => (v && v.trim() ? v.trim().toLowerCase() : null);

export function runMatchingEngine(input: EngineInput): EngineResult {
  const cap = input.maxRecordingsPerPerson ?? 3;
  const slotOf = buildSlotMap(input.slots);
  const busy = new Map<number, Set<string>>();
  for (const h of input.heats) {
    const set = busy.get(h.userId) ?? new Set<string>();
    set.add(timeKey(h, slotOf));
    set.add(timeKey({ ...h, heatNumber: h.heatNumber + 1 }, slotOf));
    busy.set(h.userId, set);
  }
  const load = new Map<number, number>();
  const fixedHeats = new Set<number>();
  for (const f of input.fixed) {
    fixedHeats.add(f.heatId);
    load.set(f.recorderId, (load.get(f.recorderId) ?? 0) + 1);
  }
  const forbidden = new Set(input.forbidden.map((f) => `${f.heatId}:${f.recorderId}`));
  const people = [...input.participants].sort((a, b) => a.userId - b.userId);
  const byId = new Map(people.map((p) => [p.userId, p]));
  const assignments: EngineAssignment[] = [];
  const unassigned: number[] = [];
  let optOutUses = 0, sameCity = 0, sameCountry = 0;
  for (const heat of [...input.heats].sort((a, b) => a.id - b.id)) {
    if (fixedHeats.has(heat.id)) continue;
    const key = timeKey(heat, slotOf);
    const dancer = byId.get(heat.userId);
    const score = (p: EngineParticipant): number[] => {
      const city = dancer && norm(p.city) !== null && norm(p.city) === norm(dancer.city) && norm(p.country) === norm(dancer.country);
      const country = dancer && norm(p.country) !== null && norm(p.country) === norm(dancer.country);
      return [p.optOut ? 1 : 0, city ? 0 : country ? 1 : 2, load.get(p.userId) ?? 0, p.userId];
    };
    let best: EngineParticipant | undefined;
    let bestScore: number[] = [];
    for (const p of people) {
      if (p.userId === heat.userId || busy.get(p.userId)?.has(key)) continue;
      if ((load.get(p.userId) ?? 0) >= cap || forbidden.has(`${heat.id}:${p.userId}`)) continue;
      const s = score(p);
      if (!best || s.some((v, i) => v !== bestScore[i]) && s.find((v, i) => v !== bestScore[i])! < bestScore[s.findIndex((v, i) => v !== bestScore[i])]) {
        best = p;
        bestScore = s;
      }
    }
    if (!best) {
      unassigned.push(heat.id);
      continue;
    }
    assignments.push({ heatId: heat.id, recorderId: best.userId });
    load.set(best.userId, (load.get(best.userId) ?? 0) + 1);
    if (best.optOut) optOutUses++;
    if (bestScore[1] === 0) sameCity++;
    else if (bestScore[1] === 1) sameCountry++;
  }
  return {
    assignments,
    unassigned,
    stats: { heats: assignments.length + unassigned.length, covered: assignments.length, optOutUses, sameCity, sameCountry, maxLoad: Math.max(0, ...load.values()) },
  };
}

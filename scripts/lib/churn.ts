/**
 * Late changes between two matching runs (benchmarks only): `share` of new dancers (with
 * 0-4 heats each, located like a random existing participant) and `share` of the existing
 * heats moved to another heat number. Same (input, seed, share) -> same result.
 */
import type { EngineHeat, EngineInput, EngineParticipant } from '../../src/modules/matching/matching.engine.js';
import { COMPETITION_TYPE_IDS, DIVISION_IDS, mulberry32 } from './generate-event.js';

export function churnEvent(input: EngineInput, seed: number, share = 0.05): EngineInput {
  const rnd = mulberry32(seed);
  const int = (n: number) => Math.floor(rnd() * n);
  const participants: EngineParticipant[] = input.participants.map((p) => ({ ...p }));
  const heats: EngineHeat[] = input.heats.map((h) => ({ ...h }));
  let nextUser = Math.max(0, ...participants.map((p) => p.userId)) + 1;
  let nextHeat = Math.max(0, ...heats.map((h) => h.id)) + 1;
  const newcomers = Math.round(share * input.participants.length);
  for (let i = 0; i < newcomers; i++) {
    const like = input.participants[int(input.participants.length)];
    const p = { userId: nextUser++, city: like.city, country: like.country, optOut: rnd() < 0.1 };
    participants.push(p);
    const used = new Set<string>();
    for (let j = int(5); j > 0; j--) {
      const divisionId = DIVISION_IDS[int(DIVISION_IDS.length)];
      const competitionTypeId = COMPETITION_TYPE_IDS[int(COMPETITION_TYPE_IDS.length)];
      const role = rnd() < 0.5 ? 'Leader' : 'Follower';
      if (used.has(`${divisionId}/${competitionTypeId}/${role}`)) continue;
      used.add(`${divisionId}/${competitionTypeId}/${role}`);
      heats.push({ id: nextHeat++, userId: p.userId, divisionId, competitionTypeId, heatNumber: 1 + int(9), role });
    }
  }
  const changes = Math.round(share * input.heats.length);
  for (let i = 0; i < changes; i++) {
    const h = heats[int(input.heats.length)];
    h.heatNumber = 1 + ((h.heatNumber + int(8)) % 9); // another number in 1..9
  }
  return { ...input, participants, heats };
}

/**
 * Reproducible random events for matching benchmarks (engine-level and API-level).
 * Same (seed, participants, options) -> same event, on every machine.
 */
import type {
  EngineHeat,
  EngineInput,
  EngineParticipant,
  ScheduleSlot,
} from '../../src/modules/matching/matching.engine.js';

/** mulberry32: small, fast, seeded 32-bit PRNG; returns floats in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** ~30 cities in 8 countries; popularity is skewed (Zipf-like by list position). */
export const CITIES: { city: string; country: string }[] = [
  ['Seattle', 'USA'],
  ['Portland', 'USA'],
  ['San Francisco', 'USA'],
  ['Los Angeles', 'USA'],
  ['San Diego', 'USA'],
  ['Sacramento', 'USA'],
  ['Denver', 'USA'],
  ['Phoenix', 'USA'],
  ['Vancouver', 'Canada'],
  ['Calgary', 'Canada'],
  ['Toronto', 'Canada'],
  ['Montreal', 'Canada'],
  ['Paris', 'France'],
  ['Lyon', 'France'],
  ['Toulouse', 'France'],
  ['Berlin', 'Germany'],
  ['Hamburg', 'Germany'],
  ['Munich', 'Germany'],
  ['Cologne', 'Germany'],
  ['Warsaw', 'Poland'],
  ['Krakow', 'Poland'],
  ['Wroclaw', 'Poland'],
  ['Gdansk', 'Poland'],
  ['London', 'UK'],
  ['Manchester', 'UK'],
  ['Bristol', 'UK'],
  ['Stockholm', 'Sweden'],
  ['Gothenburg', 'Sweden'],
  ['Melbourne', 'Australia'],
  ['Sydney', 'Australia'],
].map(([city, country]) => ({ city, country }));

export const DIVISION_IDS = [1, 2, 3, 4, 5, 6]; // NEW, NOV, INT, ADV, ALL, CHA
export const COMPETITION_TYPE_IDS = [1, 2]; // J&J, STR
/** NEW+NOV run together, ALL+CHA run together: 4 slots. */
export const DEFAULT_SLOTS: ScheduleSlot[] = [
  { order: 1, divisionIds: [1, 2] },
  { order: 2, divisionIds: [3] },
  { order: 3, divisionIds: [4] },
  { order: 4, divisionIds: [5, 6] },
];

export interface GenerateOptions {
  /** Heats declared per participant, inclusive range (default [0, 4]). */
  heatsPerParticipant?: [number, number];
  /** Share of heats already covered by an accepted suggestion of an earlier run (0). */
  fixedShare?: number;
  /** Share of heats with 1-2 rejected recorders from an earlier run (0). */
  forbiddenShare?: number;
  /** Share of participants who opted out of recording (0.1). */
  optOutShare?: number;
  /** Heat numbers per division and type: 1..heatNumbers (9). Fewer = denser clusters. */
  heatNumbers?: number;
  /** Share of participants placed in the first city, the rest as usual (unset: Zipf only). */
  mainCityShare?: number;
  /** Schedule slots (DEFAULT_SLOTS). */
  slots?: ScheduleSlot[];
}

export function generateEvent(seed: number, participants: number, options: GenerateOptions = {}): EngineInput {
  const rnd = mulberry32(seed);
  const int = (n: number) => Math.floor(rnd() * n);
  // Zipf weights 1/(i+1) over the city list.
  const weights = CITIES.map((_, i) => 1 / (i + 1));
  const totalW = weights.reduce((a, b) => a + b, 0);
  const pickCity = () => {
    let x = rnd() * totalW;
    for (let i = 0; i < weights.length; i++) if ((x -= weights[i]) < 0) return CITIES[i];
    return CITIES[CITIES.length - 1];
  };

  const people: EngineParticipant[] = [];
  for (let i = 0; i < participants; i++) {
    const c = options.mainCityShare !== undefined && rnd() < options.mainCityShare ? CITIES[0] : pickCity();
    const roll = rnd();
    // 4% no location at all, 6% country only, otherwise city + country (with cosmetic
    // case/space noise that the engine must normalise).
    const city = roll < 0.1 ? null : rnd() < 0.1 ? ` ${c.city.toUpperCase()} ` : c.city;
    const country = roll < 0.04 ? null : c.country;
    people.push({ userId: 1000 + i, city, country, optOut: rnd() < (options.optOutShare ?? 0.1) });
  }

  const heats: EngineHeat[] = [];
  let heatId = 1;
  for (const p of people) {
    const [minHeats, maxHeats] = options.heatsPerParticipant ?? [0, 4];
    const count = minHeats + int(maxHeats - minHeats + 1);
    const used = new Set<string>();
    for (let j = 0; j < count; j++) {
      const divisionId = DIVISION_IDS[int(DIVISION_IDS.length)];
      const competitionTypeId = COMPETITION_TYPE_IDS[int(COMPETITION_TYPE_IDS.length)];
      const role = rnd() < 0.5 ? 'Leader' : 'Follower';
      // A user holds at most one heat per (division, competition type, role).
      const k = `${divisionId}/${competitionTypeId}/${role}`;
      if (used.has(k)) continue;
      used.add(k);
      heats.push({
        id: heatId++,
        userId: p.userId,
        divisionId,
        competitionTypeId,
        heatNumber: 1 + int(options.heatNumbers ?? 9),
        role,
      });
    }
  }

  // Optional history of an earlier run. Recorders are drawn at random (the engine treats
  // accepted ones as covered whatever they are), at most 3 accepted per recorder.
  const fixed: EngineInput['fixed'] = [];
  const forbidden: EngineInput['forbidden'] = [];
  const load = new Map<number, number>();
  for (const h of heats) {
    if (rnd() < (options.fixedShare ?? 0)) {
      const r = people[int(people.length)].userId;
      if (r !== h.userId && (load.get(r) ?? 0) < 3) {
        load.set(r, (load.get(r) ?? 0) + 1);
        fixed.push({ heatId: h.id, recorderId: r });
        continue;
      }
    }
    if (rnd() < (options.forbiddenShare ?? 0)) {
      const n = 1 + int(2);
      for (let j = 0; j < n; j++) {
        const r = people[int(people.length)].userId;
        if (r !== h.userId) forbidden.push({ heatId: h.id, recorderId: r });
      }
    }
  }

  return {
    participants: people,
    heats,
    slots: (options.slots ?? DEFAULT_SLOTS).map((s) => ({ ...s, divisionIds: [...s.divisionIds] })),
    fixed,
    forbidden,
    maxRecordingsPerPerson: 3,
  };
}

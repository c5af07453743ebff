import type { Prisma } from '../../generated/prisma/client.js';

/**
 * The organiser's export of a plan: one CSV record per heat (src/lib/http.ts sendCsv writes
 * RFC 4180 with csv-stringify). Columns: heat label, dancer, recorder, status, locality of
 * the pair, whether the recorder opted out of recording, whether an admin pinned the pair,
 * and the recorder's balance written with the suggestion (`why`; empty on older rows).
 */
export const EXPORT_COLUMNS = [
  { key: 'heat', header: 'Heat' },
  { key: 'dancer', header: 'Dancer' },
  { key: 'recorder', header: 'Recorder' },
  { key: 'status', header: 'Status' },
  { key: 'locality', header: 'Locality' },
  { key: 'optOutUsed', header: 'Opt-out used' },
  { key: 'pinned', header: 'Pinned' },
  { key: 'recorderBalance', header: 'Recorder balance' },
] as const;

export type ExportRecord = Record<(typeof EXPORT_COLUMNS)[number]['key'], string>;

/** Statuses that make up the plan: rejected pairs are history, not part of it. */
export const EXPORT_STATUSES = ['pending', 'accepted', 'not_found'];

const person = { username: true, firstName: true, lastName: true, city: true, country: true } as const;

export const exportSelect = (eventId: number) =>
  ({
    id: true,
    status: true,
    pinned: true,
    why: true,
    heat: {
      select: {
        heatNumber: true,
        role: true,
        division: { select: { abbreviation: true } },
        competitionType: { select: { abbreviation: true } },
      },
    },
    dancer: { select: person },
    recorder: { select: { ...person, participations: { where: { eventId }, select: { recorderOptOut: true } } } },
  }) as const satisfies Prisma.RecordingSuggestionSelect;

type ExportRow = Prisma.RecordingSuggestionGetPayload<{ select: ReturnType<typeof exportSelect> }>;
type Person = {
  username: string;
  firstName: string | null;
  lastName: string | null;
  city: string | null;
  country: string | null;
};

/** e.g. "J&J NOV heat 3 (Leader)" */
function heatLabel(h: ExportRow['heat']): string {
  return `${h.competitionType.abbreviation} ${h.division.abbreviation} heat ${h.heatNumber}${h.role ? ` (${h.role})` : ''}`;
}

/** "First Last (username)", or the username alone. */
function personLabel(p: Person): string {
  const name = [p.firstName, p.lastName].filter((v) => v && v.trim()).join(' ');
  return name ? `${name} (${p.username})` : p.username;
}

const norm = (v: string | null) => (v && v.trim() ? v.trim().toLowerCase() : null);

/** Same city, else same country, else elsewhere: the engine's preference (trimmed, case-insensitive; unknown never matches). */
export function localityOf(
  a: Pick<Person, 'city' | 'country'>,
  b: Pick<Person, 'city' | 'country'>,
): 'same city' | 'same country' | 'elsewhere' {
  if (norm(a.city) !== null && norm(a.city) === norm(b.city)) return 'same city';
  if (norm(a.country) !== null && norm(a.country) === norm(b.country)) return 'same country';
  return 'elsewhere';
}

export function toExportRecord(row: ExportRow): ExportRecord {
  const r = row.recorder;
  return {
    heat: heatLabel(row.heat),
    dancer: personLabel(row.dancer),
    recorder: r ? personLabel(r) : '',
    status: row.status,
    locality: r ? localityOf(row.dancer, r) : '',
    optOutUsed: r ? (r.participations[0]?.recorderOptOut ? 'yes' : 'no') : '',
    pinned: r ? (row.pinned ? 'yes' : 'no') : '',
    recorderBalance: r ? String((row.why as { recorderBalance?: number } | null)?.recorderBalance ?? '') : '',
  };
}

/**
 * Why a recorder records a heat (the suggestion's `why`): locality tier as the engine
 * compares it (trimmed, case-insensitive, null never matches), whether the recorder opted
 * out at the event, the recorder's balance for the event, and whether the pair is pinned.
 */
export interface Why {
  locality: 'city' | 'country' | 'anywhere';
  optOut: boolean;
  recorderBalance: number;
  pinned: boolean;
}

export interface Located {
  city: string | null;
  country: string | null;
}

const norm = (v: string | null | undefined) => (v && v.trim() ? v.trim().toLowerCase() : null);

export function localityOf(dancer: Located, recorder: Located): Why['locality'] {
  if (norm(dancer.city) !== null && norm(dancer.city) === norm(recorder.city)) return 'city';
  if (norm(dancer.country) !== null && norm(dancer.country) === norm(recorder.country)) return 'country';
  return 'anywhere';
}

export function whyOf(dancer: Located, recorder: Located & { optOut: boolean; balance: number }, pinned: boolean): Why {
  return { locality: localityOf(dancer, recorder), optOut: recorder.optOut, recorderBalance: recorder.balance, pinned };
}

/** The public summary of a user used in lists, notifications and suggestions. */
export const userSummarySelect = {
  id: true,
  username: true,
  avatar: true,
  firstName: true,
  lastName: true,
} as const;

export interface UserSummaryRow {
  id: number;
  username: string;
  avatar: string;
  firstName: string | null;
  lastName: string | null;
}

/** Avatar URL built from the username by a public generator (no network call). */
export function avatarUrlFor(username: string): string {
  return `https://api.dicebear.com/9.x/avataaars/svg?seed=${encodeURIComponent(username)}`;
}

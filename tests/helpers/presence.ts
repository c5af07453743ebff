import { createUser, joinEvent, type TestUser } from './factories';
import type { ClientSocket } from './socket';

/** `count` new users, each a participant of `event`. */
export async function participants(count: number, event: { id: number }): Promise<TestUser[]> {
  const users = await Promise.all(Array.from({ length: count }, () => createUser()));
  for (const u of users) await joinEvent(u.user, event);
  return users;
}

/** Waits until `condition()` holds (checked every 20 ms), at most `timeoutMs`; resolves with its last value. */
export async function until(condition: () => boolean, timeoutMs = 15_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!condition() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  return condition();
}

interface Change {
  event: 'user_joined' | 'user_left';
  data: { userId: number };
}

/**
 * The members a client believes are in its event room: the last `active_users`, then the
 * presence changes as set operations, whether they come one by one (`user_joined`/`user_left`)
 * or batched (`presence_changes`).
 */
export function roster(socket: ClientSocket): Set<number> {
  const members = new Set<number>();
  const apply = ({ event, data }: Change) =>
    event === 'user_joined' ? members.add(data.userId) : members.delete(data.userId);
  socket.on('active_users', (list: { userId: number }[]) => {
    members.clear();
    for (const m of list) members.add(m.userId);
  });
  socket.on('user_joined', (m: { userId: number }) => apply({ event: 'user_joined', data: m }));
  socket.on('user_left', (m: { userId: number }) => apply({ event: 'user_left', data: m }));
  socket.on('presence_changes', ({ changes }: { changes: Change[] }) => changes.forEach(apply));
  return members;
}

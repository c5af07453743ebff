/** Starts the scheduled matching runs; returns a function that stops them. (Filled in by the matching feature.) */
export function startMatchingScheduler(): () => Promise<void> {
  return async () => undefined;
}

import type { Container } from '../../src/container';
import { systemClock } from '../../src/lib/clock';
import { createLogger } from '../../src/lib/logger';
import { startMatchingScheduler } from '../../src/modules/matching/matching.scheduler';

/** A stand-in MatchingService that counts ticks; a tick takes `tickMs`. */
function fakeMatching(tickMs: number) {
  const state = { calls: 0, running: 0, maxRunning: 0, finished: 0 };
  const matching = {
    closeInterruptedRuns: async () => 0,
    runDueEvents: async () => {
      state.calls++;
      state.running++;
      state.maxRunning = Math.max(state.maxRunning, state.running);
      await new Promise((r) => setTimeout(r, tickMs));
      state.running--;
      state.finished++;
      return [];
    },
  } as unknown as Container['matching'];
  return { matching, state };
}

const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('matching scheduler', () => {
  it('ticks through the injected service, never two ticks at once, and the stop function awaits the tick in progress', async () => {
    const { matching, state } = fakeMatching(150);
    const stop = startMatchingScheduler({
      matching,
      logger: createLogger('silent'),
      clock: systemClock,
      config: { matchingScheduler: { enabled: true, intervalMs: 20 } },
    });
    while (state.calls === 0) await settle(10);
    await stop();
    expect(state.maxRunning).toBe(1);
    expect(state.finished).toBe(state.calls);
    const calls = state.calls;
    await settle(100);
    expect(state.calls).toBe(calls);
  });
});

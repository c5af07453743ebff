import { scheduleOf } from '../../scripts/bench-http/fixed-rate';
import { hotReadMix } from '../../scripts/bench-http/seed';

/**
 * The polls' order of bench:event-day (scripts/bench-http/fixed-rate.ts): request `i` asks
 * `schedule[i % schedule.length]` for caller `i % callers`.
 */
const mix = hotReadMix('big-event');
const share = (schedule: { name: string }[]) =>
  Object.fromEntries(mix.map((t) => [t.name, schedule.filter((s) => s.name === t.name).length]));

describe('bench polling order', () => {
  it('grouped: one cycle of the weights, each endpoint after the same one', () => {
    const schedule = scheduleOf(mix, 3000, {});
    expect(share(schedule)).toEqual(Object.fromEntries(mix.map((t) => [t.name, t.weight])));
    expect(schedule.map((t) => t.name)).toEqual(mix.flatMap((t) => Array.from({ length: t.weight }, () => t.name)));
  });

  it('shuffled: each caller on one endpoint, the weights kept, the health check after various endpoints', () => {
    const callers = 3000;
    const schedule = scheduleOf(mix, callers, { order: 'shuffled', seed: 29 });
    // a multiple of the callers: caller k asks schedule[k] at every round
    expect(schedule.length % callers).toBe(0);
    const total = mix.reduce((n, t) => n + t.weight, 0);
    expect(share(schedule)).toEqual(Object.fromEntries(mix.map((t) => [t.name, (t.weight * schedule.length) / total])));
    const before = new Set(
      schedule.flatMap((t, i) => (t.name === 'GET /api/health' && i > 0 ? [schedule[i - 1].name] : [])),
    );
    expect(before.size).toBeGreaterThan(3);
    // seeded: the same order every run
    expect(scheduleOf(mix, callers, { order: 'shuffled', seed: 29 })).toEqual(schedule);
  });
});

import { childEnv, runTs } from '../helpers/process';

describe('check-in window in production mode', () => {
  it('refuses check-in outside [startDate - 1 day, endDate + 1 day] with 400 and the SPEC message, accepts inside', async () => {
    const result = await runTs('tests/events/fixtures/checkin-window.ts', [], childEnv({ NODE_ENV: 'production' }));
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const outcome = JSON.parse(result.stdout.trim().split('\n').pop()!);
    const refused = { status: 400, error: 'Check-in is not available for this event at this time' };
    expect(outcome.future).toEqual(refused);
    expect(outcome.past).toEqual(refused);
    expect(outcome.dayBefore).toEqual({ status: 200, alreadyCheckedIn: false });
    expect(outcome.dayAfter).toEqual({ status: 200, alreadyCheckedIn: false });
  });
});

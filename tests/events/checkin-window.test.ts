import { useTestContainer } from '../helpers/container';
import { checkinTokenFor } from '../helpers/events';
import { createEvent, createUser } from '../helpers/factories';
import { api } from '../helpers/server';

const DAY = 24 * 3600 * 1000;

describe('check-in window (enforced in production)', () => {
  useTestContainer({ checkin: { enforceWindow: true } });

  async function checkinAt(startOffset: number, endOffset: number) {
    const { auth } = await createUser();
    const now = Date.now();
    const event = await createEvent({ startDate: new Date(now + startOffset), endDate: new Date(now + endOffset) });
    return api()
      .post(`/api/events/checkin/${await checkinTokenFor(event)}`)
      .set('Authorization', auth);
  }

  it('refuses check-in before startDate - 1 day with 400 and the SPEC message', async () => {
    const res = await checkinAt(3 * DAY, 4 * DAY);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      success: false,
      error: 'Check-in is not available for this event at this time',
      code: 'CHECKIN_NOT_AVAILABLE',
    });
  });

  it('refuses check-in after endDate + 1 day', async () => {
    const res = await checkinAt(-5 * DAY, -3 * DAY);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('CHECKIN_NOT_AVAILABLE');
  });

  it('accepts check-in within a day before the start and a day after the end', async () => {
    const dayBefore = await checkinAt(DAY / 2, 2 * DAY);
    const dayAfter = await checkinAt(-3 * DAY, -DAY / 2);
    expect([dayBefore.status, dayAfter.status]).toEqual([200, 200]);
    expect(dayBefore.body.data.alreadyCheckedIn).toBe(false);
  });
});

import { prisma } from '../helpers/db';
import { createAdmin, createEvent, createUser, joinEvent } from '../helpers/factories';
import { refs, type Ref } from '../helpers/heats';
import { api } from '../helpers/server';

let R: Ref;
beforeAll(async () => {
  R = await refs();
});

const put = (path: string, auth: string | undefined, body: unknown) => {
  const req = api().put(`/api${path}`);
  if (auth) req.set('Authorization', auth);
  return req.send(body as object);
};

const participation = (userId: number, eventId: number) =>
  prisma.eventParticipant.findUniqueOrThrow({ where: { userId_eventId: { userId, eventId } } });

describe('PUT /events/:slug/competitor-number', () => {
  it("sets and clears the participant's own number and answers the updated setting", async () => {
    const event = await createEvent();
    const u = await createUser();
    await joinEvent(u.user, event);
    let res = await put(`/events/${event.slug}/competitor-number`, u.auth, { competitorNumber: 'A123' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { competitorNumber: 'A123' } });
    expect((await participation(u.user.id, event.id)).competitorNumber).toBe('A123');

    res = await put(`/events/${event.slug}/competitor-number`, u.auth, { competitorNumber: 42 });
    expect(res.body.data).toEqual({ competitorNumber: '42' });

    res = await put(`/events/${event.slug}/competitor-number`, u.auth, { competitorNumber: null });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ competitorNumber: null });
    expect((await participation(u.user.id, event.id)).competitorNumber).toBeNull();
    expect(
      await prisma.activityLog.count({
        where: { userId: u.user.id, action: 'competitor_number_update', category: 'event' },
      }),
    ).toBe(3);
  });

  it('refuses anything but 1-10 letters or digits (or null) with 400', async () => {
    const event = await createEvent();
    const u = await createUser();
    await joinEvent(u.user, event, { competitorNumber: '7' });
    for (const competitorNumber of ['', 'ABCDEFGHIJK', '12 3', '12-3', 'ż1', undefined, true, -1, 1.5]) {
      const res = await put(`/events/${event.slug}/competitor-number`, u.auth, { competitorNumber });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
    }
    expect((await participation(u.user.id, event.id)).competitorNumber).toBe('7');
  });

  it('answers 403 to a non-participant, 404 to an unknown event, 401 without a token', async () => {
    const event = await createEvent();
    const u = await createUser();
    let res = await put(`/events/${event.slug}/competitor-number`, u.auth, { competitorNumber: '1' });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('You must be a participant of this event');
    res = await put('/events/no-such-event/competitor-number', u.auth, { competitorNumber: '1' });
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('Event not found');
    res = await put(`/events/${event.slug}/competitor-number`, undefined, { competitorNumber: '1' });
    expect(res.status).toBe(401);
  });
});

describe('PUT /events/:slug/recorder-opt-out', () => {
  it("sets the participant's own opt-out both ways", async () => {
    const event = await createEvent();
    const u = await createUser();
    await joinEvent(u.user, event);
    let res = await put(`/events/${event.slug}/recorder-opt-out`, u.auth, { optOut: true });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { recorderOptOut: true } });
    expect((await participation(u.user.id, event.id)).recorderOptOut).toBe(true);
    res = await put(`/events/${event.slug}/recorder-opt-out`, u.auth, { optOut: false });
    expect(res.body.data).toEqual({ recorderOptOut: false });
    expect((await participation(u.user.id, event.id)).recorderOptOut).toBe(false);
    expect(
      await prisma.activityLog.count({
        where: { userId: u.user.id, action: 'recorder_opt_out_update', category: 'event' },
      }),
    ).toBe(2);
  });

  it('refuses a non-boolean (400) and a non-participant (403)', async () => {
    const event = await createEvent();
    const u = await createUser();
    await joinEvent(u.user, event);
    for (const optOut of ['true', 1, null, undefined]) {
      const res = await put(`/events/${event.slug}/recorder-opt-out`, u.auth, { optOut });
      expect(res.status).toBe(400);
    }
    const outsider = await createUser();
    const res = await put(`/events/${event.slug}/recorder-opt-out`, outsider.auth, { optOut: true });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('You must be a participant of this event');
  });
});

describe('PUT /events/:slug/registration-deadline', () => {
  it('lets an admin set and clear the deadline (logged under admin)', async () => {
    const event = await createEvent();
    const admin = await createAdmin();
    const deadline = '2030-05-01T18:00:00.000Z';
    let res = await put(`/events/${event.slug}/registration-deadline`, admin.auth, { registrationDeadline: deadline });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, data: { registrationDeadline: deadline } });
    expect(
      (await prisma.event.findUniqueOrThrow({ where: { id: event.id } })).registrationDeadline?.toISOString(),
    ).toBe(deadline);

    res = await put(`/events/${event.slug}/registration-deadline`, admin.auth, {
      registrationDeadline: '2030-05-01T20:00:00+02:00',
    });
    expect(res.body.data).toEqual({ registrationDeadline: deadline });
    // no offset: taken as UTC
    res = await put(`/events/${event.slug}/registration-deadline`, admin.auth, {
      registrationDeadline: '2030-05-01T18:00:00',
    });
    expect(res.body.data).toEqual({ registrationDeadline: deadline });

    res = await put(`/events/${event.slug}/registration-deadline`, admin.auth, { registrationDeadline: null });
    expect(res.body.data).toEqual({ registrationDeadline: null });
    expect((await prisma.event.findUniqueOrThrow({ where: { id: event.id } })).registrationDeadline).toBeNull();
    expect(
      await prisma.activityLog.count({
        where: { userId: admin.user.id, action: 'registration_deadline_update', category: 'admin' },
      }),
    ).toBe(4);
  });

  it('answers 403 "Admin access required" to a participant, 400 to bad dates, 404 to unknown events', async () => {
    const event = await createEvent();
    const u = await createUser();
    await joinEvent(u.user, event);
    let res = await put(`/events/${event.slug}/registration-deadline`, u.auth, {
      registrationDeadline: '2030-01-01T00:00:00Z',
    });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('Admin access required');
    const admin = await createAdmin();
    for (const registrationDeadline of [
      'tomorrow',
      '2030-13-45T00:00:00Z',
      '2030-02-30T10:00:00Z',
      '2030-W01',
      12345,
      undefined,
      '',
    ]) {
      res = await put(`/events/${event.slug}/registration-deadline`, admin.auth, { registrationDeadline });
      expect(res.status).toBe(400);
    }
    res = await put('/events/no-such-event/registration-deadline', admin.auth, { registrationDeadline: null });
    expect(res.status).toBe(404);
    expect((await prisma.event.findUniqueOrThrow({ where: { id: event.id } })).registrationDeadline).toBeNull();
  });
});

describe('PUT /events/:slug/schedule-config', () => {
  it('lets an admin store slots (sorted by order) and clear them with null', async () => {
    const event = await createEvent();
    const admin = await createAdmin();
    const scheduleConfig = {
      slots: [
        { order: 2, divisionIds: [R.ADV, R.ALL, R.CHA] },
        { order: 1, divisionIds: [R.NEW, R.NOV] },
      ],
    };
    let res = await put(`/events/${event.slug}/schedule-config`, admin.auth, { scheduleConfig });
    expect(res.status).toBe(200);
    const expected = { slots: [scheduleConfig.slots[1], scheduleConfig.slots[0]] };
    expect(res.body).toEqual({ success: true, data: { scheduleConfig: expected } });
    expect((await prisma.event.findUniqueOrThrow({ where: { id: event.id } })).scheduleConfig).toEqual(expected);

    res = await put(`/events/${event.slug}/schedule-config`, admin.auth, { scheduleConfig: { slots: [] } });
    expect(res.body.data).toEqual({ scheduleConfig: { slots: [] } });

    res = await put(`/events/${event.slug}/schedule-config`, admin.auth, { scheduleConfig: null });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ scheduleConfig: null });
    expect((await prisma.event.findUniqueOrThrow({ where: { id: event.id } })).scheduleConfig).toBeNull();
    expect(
      await prisma.activityLog.count({
        where: { userId: admin.user.id, action: 'schedule_config_update', category: 'admin' },
      }),
    ).toBe(3);
  });

  it('refuses a division in two slots, unknown divisions and malformed slots with 400, keeping the old value', async () => {
    const old = { slots: [{ order: 1, divisionIds: [R.NEW, R.NOV] }] };
    const event = await createEvent({ scheduleConfig: old });
    const admin = await createAdmin();
    const bad: [unknown, string][] = [
      [
        {
          slots: [
            { order: 1, divisionIds: [R.NEW, R.NOV] },
            { order: 2, divisionIds: [R.NOV, R.INT] },
          ],
        },
        'A division may appear in at most one slot',
      ],
      [{ slots: [{ order: 1, divisionIds: [R.NEW, R.NEW] }] }, 'A division may appear in at most one slot'],
      [{ slots: [{ order: 1, divisionIds: [99999] }] }, 'Unknown division: 99999'],
      [
        {
          slots: [
            { order: 1, divisionIds: [R.NEW] },
            { order: 1, divisionIds: [R.NOV] },
          ],
        },
        'Slot order values must be unique',
      ],
      [
        { slots: [{ order: 1, divisionIds: [] }] },
        'Each slot must have an integer order and a non-empty divisionIds array of integers',
      ],
      [
        { slots: [{ order: 1.5, divisionIds: [R.NEW] }] },
        'Each slot must have an integer order and a non-empty divisionIds array of integers',
      ],
      [
        { slots: [{ divisionIds: [R.NEW] }] },
        'Each slot must have an integer order and a non-empty divisionIds array of integers',
      ],
      [
        { slots: [{ order: 1, divisionIds: ['1'] }] },
        'Each slot must have an integer order and a non-empty divisionIds array of integers',
      ],
      [{ slots: 'all' }, 'scheduleConfig must be an object with a slots array, or null'],
      [[1, 2], 'scheduleConfig must be an object with a slots array, or null'],
      [undefined, 'scheduleConfig must be an object with a slots array, or null'],
    ];
    for (const [scheduleConfig, message] of bad) {
      const res = await put(`/events/${event.slug}/schedule-config`, admin.auth, { scheduleConfig });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ success: false, error: message, code: 'VALIDATION_ERROR' });
    }
    expect((await prisma.event.findUniqueOrThrow({ where: { id: event.id } })).scheduleConfig).toEqual(old);
  });

  it('is admin-only: 403 "Admin access required" to a participant, 401 without a token; 404 for unknown events', async () => {
    const event = await createEvent();
    const u = await createUser();
    await joinEvent(u.user, event);
    let res = await put(`/events/${event.slug}/schedule-config`, u.auth, { scheduleConfig: null });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('Admin access required');
    res = await put(`/events/${event.slug}/schedule-config`, undefined, { scheduleConfig: null });
    expect(res.status).toBe(401);
    const admin = await createAdmin();
    res = await put('/events/no-such-event/schedule-config', admin.auth, { scheduleConfig: null });
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('Event not found');
  });
});

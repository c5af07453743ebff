import { prisma } from '../helpers/db';
import { createEvent, createUser, divisionId, competitionTypeId, joinEvent } from '../helpers/factories';
import { checkinTokenFor, createUsers, participantRows, storedCount } from '../helpers/events';
import { api, useTestServer } from '../helpers/server';

describe('POST /events/checkin/:token and DELETE /events/:slug/leave', () => {
  const server = useTestServer();

  it('refuses an unknown token with 404 "Invalid check-in token" and requires a Bearer token', async () => {
    const { auth } = await createUser();
    const res = await api().post('/api/events/checkin/nope-not-a-token').set('Authorization', auth);
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ success: false, error: 'Invalid check-in token', code: 'INVALID_CHECKIN_TOKEN' });
    const long = await api()
      .post(`/api/events/checkin/${'a'.repeat(300)}`)
      .set('Authorization', auth);
    expect(long.status).toBe(404);
    expect(long.body.error).toBe('Invalid check-in token');
    const anonymous = await api().post('/api/events/checkin/whatever');
    expect(anonymous.status).toBe(401);
  });

  it('creates the participation, increments the counter, creates the event room, logs the check-in', async () => {
    const event = await createEvent();
    const token = await checkinTokenFor(event);
    const { user, auth } = await createUser();
    const res = await api().post(`/api/events/checkin/${token}`).set('Authorization', auth);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      alreadyCheckedIn: false,
      event: {
        id: event.id,
        slug: event.slug,
        name: event.name,
        location: event.location,
        startDate: event.startDate.toISOString(),
        endDate: event.endDate.toISOString(),
      },
      joinedAt: expect.any(String),
    });
    const participation = await prisma.eventParticipant.findUniqueOrThrow({
      where: { userId_eventId: { userId: user.id, eventId: event.id } },
    });
    expect(participation.joinedAt.toISOString()).toBe(res.body.data.joinedAt);
    expect(await storedCount(event.id)).toBe(1);
    expect(await prisma.chatRoom.count({ where: { eventId: event.id, type: 'event' } })).toBe(1);
    const log = await prisma.activityLog.findFirst({ where: { userId: user.id, action: 'checkin' } });
    expect(log).toMatchObject({ category: 'event', resource: `event:${event.slug}`, success: true });
  });

  it('answers alreadyCheckedIn: true with the original joinedAt and changes nothing on a second check-in', async () => {
    const event = await createEvent({ withChatRoom: true });
    const token = await checkinTokenFor(event);
    const { auth } = await createUser();
    const first = await api().post(`/api/events/checkin/${token}`).set('Authorization', auth);
    const second = await api().post(`/api/events/checkin/${token}`).set('Authorization', auth);
    expect(second.status).toBe(200);
    expect(second.body.data.alreadyCheckedIn).toBe(true);
    expect(second.body.data.joinedAt).toBe(first.body.data.joinedAt);
    expect(await storedCount(event.id)).toBe(1);
    expect(await participantRows(event.id)).toBe(1);
    expect(await prisma.chatRoom.count({ where: { eventId: event.id } })).toBe(1);
  });

  it('does not enforce the time window outside production (an event next year accepts check-in)', async () => {
    const start = new Date(Date.now() + 365 * 24 * 3600 * 1000);
    const event = await createEvent({ startDate: start, endDate: new Date(start.getTime() + 3600_000) });
    const { auth } = await createUser();
    const res = await api()
      .post(`/api/events/checkin/${await checkinTokenFor(event)}`)
      .set('Authorization', auth);
    expect(res.status).toBe(200);
  });

  it('50 simultaneous check-ins of one user create one participation and add exactly 1', async () => {
    const event = await createEvent();
    const token = await checkinTokenFor(event);
    const { user, auth } = await createUser();
    const results = await Promise.all(
      Array.from({ length: 50 }, () => server.request.post(`/api/events/checkin/${token}`).set('Authorization', auth)),
    );
    expect(results.map((r) => r.status)).toEqual(Array(50).fill(200));
    expect(results.filter((r) => r.body.data.alreadyCheckedIn === false)).toHaveLength(1);
    expect(await prisma.eventParticipant.count({ where: { eventId: event.id, userId: user.id } })).toBe(1);
    expect(await storedCount(event.id)).toBe(1);
    expect(await prisma.chatRoom.count({ where: { eventId: event.id, type: 'event' } })).toBe(1);
  });

  it('200 users checking in at once leave participantsCount equal to the number of rows', async () => {
    const event = await createEvent();
    const token = await checkinTokenFor(event);
    const users = await createUsers(200);
    const results = await Promise.all(
      users.map((u) => server.request.post(`/api/events/checkin/${token}`).set('Authorization', u.auth)),
    );
    expect(results.every((r) => r.status === 200 && r.body.data.alreadyCheckedIn === false)).toBe(true);
    expect(await participantRows(event.id)).toBe(200);
    expect(await storedCount(event.id)).toBe(200);
  });

  it('leave and rejoin, concurrently and repeatedly, keep the counter equal to the rows', async () => {
    const event = await createEvent();
    const token = await checkinTokenFor(event);
    const users = await createUsers(20);
    await Promise.all(
      users.map((u) => server.request.post(`/api/events/checkin/${token}`).set('Authorization', u.auth)),
    );
    for (let round = 0; round < 3; round++) {
      await Promise.all(
        users.flatMap((u, i) =>
          i % 2 === 0
            ? [
                server.request.delete(`/api/events/${event.slug}/leave`).set('Authorization', u.auth),
                server.request.delete(`/api/events/${event.slug}/leave`).set('Authorization', u.auth),
              ]
            : [server.request.post(`/api/events/checkin/${token}`).set('Authorization', u.auth)],
        ),
      );
      await Promise.all(
        users.map((u) => server.request.post(`/api/events/checkin/${token}`).set('Authorization', u.auth)),
      );
      expect(await storedCount(event.id)).toBe(await participantRows(event.id));
    }
    expect(await participantRows(event.id)).toBe(20);
  });

  it('leave: 404 for an unknown event, 400 for a non-participant, 200 removes the participation and its heats', async () => {
    const { user, auth } = await createUser();
    const missing = await api().delete('/api/events/NoSuchEvent123/leave').set('Authorization', auth);
    expect(missing.status).toBe(404);
    expect(missing.body.error).toBe('Event not found');

    const event = await createEvent();
    const notIn = await api().delete(`/api/events/${event.slug}/leave`).set('Authorization', auth);
    expect(notIn.status).toBe(400);
    expect(notIn.body.error).toBe('You are not a participant of this event');

    await joinEvent(user, event);
    await prisma.heat.create({
      data: {
        userId: user.id,
        eventId: event.id,
        divisionId: await divisionId('NOV'),
        competitionTypeId: await competitionTypeId('J&J'),
        heatNumber: 1,
      },
    });
    const res = await api().delete(`/api/events/${event.slug}/leave`).set('Authorization', auth);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: expect.any(String) });
    expect(await participantRows(event.id)).toBe(0);
    expect(await storedCount(event.id)).toBe(0);
    expect(await prisma.heat.count({ where: { eventId: event.id } })).toBe(0);
    const log = await prisma.activityLog.findFirst({ where: { userId: user.id, action: 'leave' } });
    expect(log).toMatchObject({ category: 'event', resource: `event:${event.slug}` });
  });
});

import { prisma } from '../helpers/db';
import { createAdmin, createEvent, createUser } from '../helpers/factories';
import { api } from '../helpers/server';

const valid = {
  name: '  Swing Fling  ',
  location: 'Berlin, Germany',
  startDate: '2027-05-01T10:00:00.000Z',
  endDate: '2027-05-03T18:00:00.000Z',
  worldRegistryId: '1234',
  description: 'Three days of WCS',
};

describe('POST /admin/events', () => {
  it('creates an event with a random alphanumeric slug (201) and logs it', async () => {
    const admin = await createAdmin();
    const res = await api().post('/api/admin/events').set('Authorization', admin.auth).send(valid);
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      name: 'Swing Fling',
      location: 'Berlin, Germany',
      startDate: valid.startDate,
      endDate: valid.endDate,
      worldRegistryId: '1234',
      description: 'Three days of WCS',
      participantsCount: 0,
    });
    expect(res.body.data.slug).toMatch(/^[A-Za-z0-9]{12,50}$/);
    const stored = await prisma.event.findUniqueOrThrow({ where: { slug: res.body.data.slug } });
    expect(stored.name).toBe('Swing Fling');
    const log = await prisma.activityLog.findFirst({
      where: { action: 'event_create', resource: `event:${stored.slug}` },
    });
    expect(log).toMatchObject({ category: 'event', userId: admin.user.id });
  });

  it('refuses non-admins with 403 and anonymous callers with 401', async () => {
    const user = await createUser();
    const res = await api().post('/api/admin/events').set('Authorization', user.auth).send(valid);
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('Admin access required');
    expect((await api().post('/api/admin/events').send(valid)).status).toBe(401);
  });

  it('validates fields: missing name, bad dates, end before start', async () => {
    const admin = await createAdmin();
    const send = (body: object) => api().post('/api/admin/events').set('Authorization', admin.auth).send(body);
    const missing = await send({ ...valid, name: undefined });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ error: 'Validation failed', details: [{ field: 'name' }] });
    const badDate = await send({ ...valid, startDate: 'tomorrow' });
    expect(badDate.status).toBe(400);
    expect(badDate.body.details).toEqual([{ field: 'startDate', message: expect.any(String) }]);
    const reversed = await send({ ...valid, endDate: '2027-04-01T00:00:00Z' });
    expect(reversed.status).toBe(400);
    expect(reversed.body.details).toEqual([{ field: 'endDate', message: expect.any(String) }]);
    const wrongType = await send({ ...valid, description: 42 });
    expect(wrongType.status).toBe(400);
  });
});

describe('PATCH /admin/events/:slug', () => {
  it('updates the given fields only and clears description with null', async () => {
    const admin = await createAdmin();
    const event = await createEvent({ description: 'old' });
    const res = await api()
      .patch(`/api/admin/events/${event.slug}`)
      .set('Authorization', admin.auth)
      .send({ name: 'Renamed', description: null, participantsCount: 500 });
    expect(res.status).toBe(200);
    const stored = await prisma.event.findUniqueOrThrow({ where: { id: event.id } });
    expect(stored).toMatchObject({
      name: 'Renamed',
      description: null,
      location: event.location,
      participantsCount: 0,
    });
    expect(res.body.data.name).toBe('Renamed');
    const log = await prisma.activityLog.findFirst({
      where: { action: 'event_update', resource: `event:${event.slug}` },
    });
    expect(log).toMatchObject({
      category: 'event',
      userId: admin.user.id,
      success: true,
      metadata: { fields: ['name', 'description'] },
    });
  });

  it('checks the date order against the stored dates, answers 404 for an unknown slug, 403 for non-admins', async () => {
    const admin = await createAdmin();
    const event = await createEvent();
    const before = new Date(event.startDate.getTime() - 3600_000).toISOString();
    const res = await api()
      .patch(`/api/admin/events/${event.slug}`)
      .set('Authorization', admin.auth)
      .send({ endDate: before });
    expect(res.status).toBe(400);
    expect(res.body.details[0].field).toBe('endDate');
    const missing = await api()
      .patch('/api/admin/events/NoSuchEvent55')
      .set('Authorization', admin.auth)
      .send({ name: 'x' });
    expect(missing.status).toBe(404);
    expect(missing.body.error).toBe('Event not found');
    const user = await createUser();
    expect(
      (await api().patch(`/api/admin/events/${event.slug}`).set('Authorization', user.auth).send({ name: 'x' })).status,
    ).toBe(403);
  });
});

import type { Container } from '../../src/container';
import { systemActor } from '../../src/lib/actor';
import { actorFor } from '../helpers/actor';
import { createTestContainer } from '../helpers/container';
import { prisma } from '../helpers/db';
import { checkinTokenFor } from '../helpers/events';
import { createEvent, createUser } from '../helpers/factories';

const DAY = 24 * 3600 * 1000;

describe('EventsService', () => {
  const now = new Date('2030-06-15T12:00:00Z');
  let container: Container;
  beforeAll(() => {
    container = createTestContainer({ checkin: { enforceWindow: true } }, { clock: { now: () => now } });
  });
  afterAll(async () => {
    await container.close();
  });

  it('check-in: the window is measured with the injected clock', async () => {
    const { user } = await createUser();
    const inWindow = await createEvent({
      startDate: new Date(now.getTime() + DAY / 2),
      endDate: new Date(now.getTime() + 2 * DAY),
    });
    const later = await createEvent({
      startDate: new Date(now.getTime() + 3 * DAY),
      endDate: new Date(now.getTime() + 4 * DAY),
    });
    const actor = actorFor(user);
    await expect(container.checkin.checkin(actor, { token: await checkinTokenFor(inWindow) })).resolves.toMatchObject({
      alreadyCheckedIn: false,
    });
    await expect(container.checkin.checkin(actor, { token: await checkinTokenFor(later) })).rejects.toMatchObject({
      code: 'CHECKIN_NOT_AVAILABLE',
    });
  });

  it('create: the CLI path logs event_create with the system actor', async () => {
    const event = await container.events.create(systemActor('cli'), {
      name: 'CLI Camp',
      location: 'Gdańsk',
      startDate: new Date('2031-01-01T10:00:00Z'),
      endDate: new Date('2031-01-02T10:00:00Z'),
    });
    const log = await prisma.activityLog.findFirst({
      where: { action: 'event_create', resource: `event:${event.slug}` },
    });
    expect(log).toMatchObject({ category: 'event', userId: null, method: 'cli', success: true });
  });

  it('create: refuses an end before the start with 400 and logs nothing', async () => {
    const name = `Backwards ${Date.now()}`;
    await expect(
      container.events.create(systemActor('cli'), {
        name,
        location: 'X',
        startDate: new Date('2031-01-02'),
        endDate: new Date('2031-01-01'),
      }),
    ).rejects.toMatchObject({ code: 'VALIDATION_ERROR', status: 400 });
    expect(await prisma.event.count({ where: { name } })).toBe(0);
  });
});

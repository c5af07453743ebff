import { createEvent, createUser, joinEvent } from '../helpers/factories';
import { refs, type Ref } from '../helpers/heats';
import { useTestServer } from '../helpers/server';
import { connectSocket, nextEvent, receivesWithin, type ClientSocket } from '../helpers/socket';

describe('heats_updated broadcast', () => {
  const server = useTestServer();
  let R: Ref;
  const sockets: ClientSocket[] = [];

  beforeAll(async () => {
    R = await refs();
  });
  afterAll(() => {
    for (const s of sockets) s.close();
  });

  /** A connected socket placed in the event room server-side (independent of join_event_room). */
  async function inEventRoom(token: string, eventId: number) {
    const socket = await connectSocket(server.url, token);
    sockets.push(socket);
    server.container.notifier.server!.in(socket.id!).socketsJoin(`event_${eventId}`);
    return socket;
  }

  it('reaches another participant in event_<id> with userId, username and the saved heats', async () => {
    const event = await createEvent();
    const dancer = await createUser();
    const watcher = await createUser();
    await joinEvent(dancer.user, event);
    await joinEvent(watcher.user, event);
    const watcherSocket = await inEventRoom(watcher.token, event.id);
    const outsiderSocket = await inEventRoom((await createUser()).token, (await createEvent()).id);

    const received = nextEvent<{ userId: number; username: string; heats: unknown[] }>(watcherSocket, 'heats_updated');
    const outsiderReceived = receivesWithin(outsiderSocket, 'heats_updated', 500);
    const res = await server.request
      .post(`/api/events/${event.slug}/heats`)
      .set('Authorization', dancer.auth)
      .send({ heats: [{ divisionId: R.NOV, competitionTypeId: R.JJ, heatNumber: 3, role: 'Leader' }] });
    expect(res.status).toBe(200);

    const payload = await received;
    expect(payload).toEqual({ userId: dancer.user.id, username: dancer.user.username, heats: res.body.data });
    expect(payload.heats[0]).toEqual({
      id: expect.any(Number),
      divisionId: R.NOV,
      division: { id: R.NOV, name: 'Novice', abbreviation: 'NOV' },
      competitionTypeId: R.JJ,
      competitionType: { id: R.JJ, name: 'Jack & Jill', abbreviation: 'J&J' },
      heatNumber: 3,
      role: 'Leader',
    });
    await expect(outsiderReceived).resolves.toBe(false);
  });

  it('is not sent for a refused submission', async () => {
    const event = await createEvent();
    const dancer = await createUser();
    await joinEvent(dancer.user, event);
    const watcherSocket = await inEventRoom((await createUser()).token, event.id);
    const got = receivesWithin(watcherSocket, 'heats_updated', 500);
    const res = await server.request
      .post(`/api/events/${event.slug}/heats`)
      .set('Authorization', dancer.auth)
      .send({
        heats: [
          { divisionId: R.NOV, competitionTypeId: R.JJ, heatNumber: 1 },
          { divisionId: R.NOV, competitionTypeId: R.JJ, heatNumber: 2 },
        ],
      });
    expect(res.status).toBe(400);
    await expect(got).resolves.toBe(false);
  });

  it('is sent with the remaining heats after a delete', async () => {
    const event = await createEvent();
    const dancer = await createUser();
    await joinEvent(dancer.user, event);
    const saved = await server.request
      .post(`/api/events/${event.slug}/heats`)
      .set('Authorization', dancer.auth)
      .send({
        heats: [
          { divisionId: R.NOV, competitionTypeId: R.JJ, heatNumber: 1 },
          { divisionId: R.INT, competitionTypeId: R.JJ, heatNumber: 2 },
        ],
      });
    const watcherSocket = await inEventRoom((await createUser()).token, event.id);
    const received = nextEvent<{ userId: number; heats: { id: number }[] }>(watcherSocket, 'heats_updated');
    const res = await server.request
      .delete(`/api/events/${event.slug}/heats/${saved.body.data[0].id}`)
      .set('Authorization', dancer.auth);
    expect(res.status).toBe(200);
    const payload = await received;
    expect(payload.userId).toBe(dancer.user.id);
    expect(payload.heats.map((h) => h.id)).toEqual([saved.body.data[1].id]);
  });
});

/**
 * The inputs of fair matching for people (src/modules/matching/matching-people.schemas.ts):
 * each refusal answers 400 VALIDATION_ERROR with the details the API has always given.
 */
import type { Event } from '../../src/generated/prisma/client';
import { competitionTypeId } from '../helpers/factories';
import { person, scenario } from '../helpers/matching';
import { api } from '../helpers/server';

const settingsUrl = (e: Event) => `/api/events/${e.slug}/matching-settings`;
const prefsUrl = (e: Event) => `/api/events/${e.slug}/recording-preferences`;
const pinUrl = (e: Event) => `/api/admin/events/${e.slug}/match-suggestions`;

describe('fair matching inputs', () => {
  it('names each wrong setting, and asks for at least one when none is given', async () => {
    const { event, admin } = await scenario();
    const put = (body: unknown) =>
      api()
        .put(settingsUrl(event))
        .set('Authorization', admin.auth)
        .send(body as object);
    expect((await put({ bufferBefore: '1', maxRecordingsPerPerson: 9, optOutMode: ['last'] })).body.details).toEqual([
      { field: 'bufferBefore', message: 'bufferBefore must be an integer from 0 to 2' },
      { field: 'maxRecordingsPerPerson', message: 'maxRecordingsPerPerson must be an integer from 1 to 5' },
      { field: 'optOutMode', message: 'optOutMode must be "last" or "exclude"' },
    ]);
    expect((await put({ other: 1 })).body.details).toEqual([
      { field: 'body', message: 'Give at least one of bufferBefore, bufferAfter, maxRecordingsPerPerson, optOutMode' },
    ]);
  });

  it('names each broken entry of the preferences, then unknown reference ids', async () => {
    const { event } = await scenario();
    const p = await person(event);
    const put = (body: unknown) =>
      api()
        .put(prefsUrl(event))
        .set('Authorization', p.auth)
        .send(body as object);
    const shape = await put({ unavailable: [{ competitionTypeId: '1', heatNumber: 10 }, 'x'] });
    expect(shape.status).toBe(400);
    expect(shape.body.details).toEqual([
      { field: 'unavailable[0].competitionTypeId', message: 'competitionTypeId must be the id of a competition type' },
      { field: 'unavailable[0].heatNumber', message: 'heatNumber must be an integer from 1 to 9' },
      { field: 'unavailable[1]', message: 'unavailable[1] must be an object' },
    ]);
    const jj = await competitionTypeId('J&J');
    const unknown = await put({
      unavailable: [
        { competitionTypeId: jj, heatNumber: 1 },
        { competitionTypeId: 999999, heatNumber: 2 },
      ],
    });
    expect(unknown.body.details).toEqual([
      { field: 'unavailable[1].competitionTypeId', message: 'competitionTypeId must be the id of a competition type' },
    ]);
    expect((await put({ maxRecordings: -1, unavailable: {} })).body.details).toEqual([
      { field: 'maxRecordings', message: 'maxRecordings must be null or an integer of at least 0' },
      { field: 'unavailable', message: 'unavailable must be an array' },
    ]);
    expect((await put({})).body.details).toEqual([{ field: 'body', message: 'Give maxRecordings and/or unavailable' }]);
  });

  it('refuses a pin without positive integer ids and a malformed participant id', async () => {
    const { event, admin } = await scenario();
    const pin = await api().post(pinUrl(event)).set('Authorization', admin.auth).send({ heatId: '3' });
    expect(pin.status).toBe(400);
    expect(pin.body.details).toEqual([
      { field: 'heatId', message: 'heatId must be a positive integer' },
      { field: 'recorderId', message: 'recorderId must be a positive integer' },
    ]);
    const absent = await api()
      .post(`/api/admin/events/${event.slug}/participants/abc/absent`)
      .set('Authorization', admin.auth);
    expect(absent.status).toBe(400);
    expect(absent.body.details).toEqual([{ field: 'userId', message: 'userId must be a positive integer' }]);
  });
});

import { ReferenceData } from '../../src/lib/reference-data';
import { knownHeatIds, parseHeats, replaceHeatsInput, type HeatInput } from '../../src/modules/heats/heats.schemas';
import { prisma } from '../helpers/db';
import { refs } from '../helpers/heats';

describe('ReferenceData', () => {
  it('reads divisions and competition types once and keeps them', async () => {
    const reference = new ReferenceData(prisma);
    const R = await refs();
    const ids = await reference.divisionIds();
    expect(ids.has(R.NOV)).toBe(true);
    expect((await reference.competitionTypeIds()).has(R.JJ)).toBe(true);
    expect(await reference.divisionIds()).toBe(ids);
    expect((await reference.divisions()).map((d) => d.abbreviation)).toEqual([
      'NEW',
      'NOV',
      'INT',
      'ADV',
      'ALL',
      'CHA',
    ]);
  });
});

describe('parseHeats and knownHeatIds (the heats body check, without a database)', () => {
  const known = { divisionIds: new Set([1, 2]), competitionTypeIds: new Set([7]) };
  const failure = async (raw: unknown) => {
    try {
      knownHeatIds(
        (await replaceHeatsInput.run({ params: { slug: 'x' }, body: { heats: raw } })).heats as HeatInput[],
        known,
      );
    } catch (err) {
      const e = err as { message: string; details: { field: string }[] };
      return { error: e.message, field: e.details[0].field };
    }
    throw new Error('expected a refusal');
  };

  it('normalizes ids and heat numbers given as strings of digits and an absent role', () => {
    expect(parseHeats([{ divisionId: '2', competitionTypeId: 7, heatNumber: '3' }])).toEqual([
      { divisionId: 2, competitionTypeId: 7, heatNumber: 3, role: null },
    ]);
  });

  it('checks ids against the given reference data', async () => {
    expect(await failure([{ divisionId: 3, competitionTypeId: 7, heatNumber: 1 }])).toEqual({
      error: 'Unknown division: 3',
      field: 'heats[0].divisionId',
    });
    expect(await failure([{ divisionId: 1, competitionTypeId: 8, heatNumber: 1 }])).toEqual({
      error: 'Unknown competition type: 8',
      field: 'heats[0].competitionTypeId',
    });
  });

  it('answers the first problem in body order, through the input declaration', async () => {
    const body = [
      { divisionId: 1, competitionTypeId: 7, heatNumber: 1, role: 'Dancer' },
      { divisionId: 1, competitionTypeId: 7 },
    ];
    expect(await failure(body)).toEqual({ error: 'Role must be either Leader or Follower', field: 'heats[0].role' });
  });
});

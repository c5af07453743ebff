import { systemActor } from '../../src/lib/actor';
import { prisma } from '../helpers/db';
import { createTestContainer, testContainer } from '../helpers/container';
import { competitionTypeId, divisionId } from '../helpers/factories';
import { createTrio, insertMatch } from '../helpers/matches';

async function suggestionFor(event: { id: number }, dancer: { id: number }, recorder: { id: number }) {
  const run = await prisma.matchingRun.create({ data: { eventId: event.id, trigger: 'manual', status: 'success' } });
  const heat = await prisma.heat.create({
    data: {
      userId: dancer.id,
      eventId: event.id,
      divisionId: await divisionId('NOV'),
      competitionTypeId: await competitionTypeId('J&J'),
      heatNumber: 1,
      role: 'Leader',
    },
  });
  return prisma.recordingSuggestion.create({
    data: {
      eventId: event.id,
      heatId: heat.id,
      dancerId: dancer.id,
      recorderId: recorder.id,
      status: 'accepted',
      originRunId: run.id,
    },
  });
}

const matches = () => testContainer().matches;

describe('createOrReuseAcceptedMatch (recording-suggestion acceptance)', () => {
  it('creates an accepted auto match linked to the suggestion, with its private room', async () => {
    const { event, alice, bob } = await createTrio();
    const s = await suggestionFor(event, alice.user, bob.user);
    const match = await prisma.$transaction((tx) =>
      matches().createOrReuseAcceptedMatch(systemActor('test'), {
        tx,
        eventId: event.id,
        userAId: alice.user.id,
        userBId: bob.user.id,
        suggestionId: s.id,
      }),
    );
    expect(match).toMatchObject({
      status: 'accepted',
      source: 'auto',
      suggestionId: s.id,
      user1Id: alice.user.id,
      user2Id: bob.user.id,
    });
    expect(match.respondedAt).toBeInstanceOf(Date);
    expect(match.slug).toMatch(/^[A-Za-z0-9]{12,}$/);
    const room = await prisma.chatRoom.findUniqueOrThrow({ where: { matchId: match.id } });
    expect(room).toMatchObject({ type: 'private', eventId: null });
    expect(match.chatRoom?.id).toBe(room.id);
  });

  it('reuses a pending match in the other direction: accepts it and creates its room', async () => {
    const { event, alice, bob } = await createTrio();
    const pending = await insertMatch(event, bob.user, alice.user);
    const s = await suggestionFor(event, alice.user, bob.user);
    const match = await prisma.$transaction((tx) =>
      matches().createOrReuseAcceptedMatch(systemActor('test'), {
        tx,
        eventId: event.id,
        userAId: alice.user.id,
        userBId: bob.user.id,
        suggestionId: s.id,
      }),
    );
    expect(match.id).toBe(pending.id);
    expect(match).toMatchObject({ status: 'accepted', source: 'manual', suggestionId: s.id });
    expect(match.respondedAt).not.toBeNull();
    expect(await prisma.chatRoom.count({ where: { matchId: pending.id } })).toBe(1);
    expect(await prisma.match.count({ where: { eventId: event.id } })).toBe(1);
  });

  it('reuses an accepted or completed match unchanged (one room, status kept)', async () => {
    const { event, alice, bob } = await createTrio();
    const done = await insertMatch(event, alice.user, bob.user, 'completed');
    const s1 = await suggestionFor(event, alice.user, bob.user);
    const again = await prisma.$transaction((tx) =>
      matches().createOrReuseAcceptedMatch(systemActor('test'), {
        tx,
        eventId: event.id,
        userAId: bob.user.id,
        userBId: alice.user.id,
        suggestionId: s1.id,
      }),
    );
    expect(again).toMatchObject({ id: done.id, status: 'completed' });
    expect(await prisma.chatRoom.count({ where: { matchId: done.id } })).toBe(1);
  });

  it("rolls back with the caller's transaction", async () => {
    const { event, alice, bob } = await createTrio();
    const s = await suggestionFor(event, alice.user, bob.user);
    await expect(
      prisma.$transaction(async (tx) => {
        await matches().createOrReuseAcceptedMatch(systemActor('test'), {
          tx,
          eventId: event.id,
          userAId: alice.user.id,
          userBId: bob.user.id,
          suggestionId: s.id,
        });
        throw new Error('caller failed');
      }),
    ).rejects.toThrow('caller failed');
    expect(await prisma.match.count({ where: { eventId: event.id } })).toBe(0);
  });

  it('concurrent calls for the same pair end with one match', async () => {
    const { event, alice, bob } = await createTrio();
    const s1 = await suggestionFor(event, alice.user, bob.user);
    const s2 = await suggestionFor(event, bob.user, alice.user);
    const [a, b] = await Promise.all([
      prisma.$transaction((tx) =>
        matches().createOrReuseAcceptedMatch(systemActor('test'), {
          tx,
          eventId: event.id,
          userAId: alice.user.id,
          userBId: bob.user.id,
          suggestionId: s1.id,
        }),
      ),
      prisma.$transaction((tx) =>
        matches().createOrReuseAcceptedMatch(systemActor('test'), {
          tx,
          eventId: event.id,
          userAId: bob.user.id,
          userBId: alice.user.id,
          suggestionId: s2.id,
        }),
      ),
    ]);
    expect(a.id).toBe(b.id);
    expect(await prisma.match.count({ where: { eventId: event.id } })).toBe(1);
  });

  it("stamps respondedAt with the container's clock", async () => {
    const now = new Date('2030-06-01T12:00:00.000Z');
    const container = createTestContainer({}, { clock: { now: () => now } });
    try {
      const { event, alice, bob } = await createTrio();
      const s = await suggestionFor(event, alice.user, bob.user);
      const match = await prisma.$transaction((tx) =>
        container.matches.createOrReuseAcceptedMatch(systemActor('test'), {
          tx,
          eventId: event.id,
          userAId: alice.user.id,
          userBId: bob.user.id,
          suggestionId: s.id,
        }),
      );
      expect(match.respondedAt).toEqual(now);
    } finally {
      await container.close();
    }
  });
});

import { Client } from 'pg';
import { testContainer } from '../helpers/container';
import { prisma } from '../helpers/db';
import { createEvent } from '../helpers/factories';
import { childEnv, startServer, waitForHealth } from '../helpers/process';
import { MATCHING_LOCK_CLASS } from '../../src/modules/matching/matching.lock';
import { matchingSchedulerTick } from '../../src/modules/matching/matching.scheduler';

/** A MatchingRun row left `running` (as by a process killed during the run) of an event that is not due. */
async function staleRun() {
  const event = await createEvent();
  const run = await prisma.matchingRun.create({ data: { eventId: event.id, trigger: 'manual', status: 'running' } });
  return { event, run };
}

/** Holds the event's matching lock on a session of its own, as a live run on another instance does. */
async function holdLock(eventId: number): Promise<() => Promise<void>> {
  const client = new Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS locked', [
    MATCHING_LOCK_CLASS,
    eventId,
  ]);
  expect(rows[0].locked).toBe(true);
  return () => client.end();
}

describe('matching runs interrupted by a stopped process', () => {
  it('the scheduler tick marks a run left "running" failed "Interrupted" when its event lock is free', async () => {
    const { run } = await staleRun();
    await matchingSchedulerTick(testContainer());
    expect(await prisma.matchingRun.findUniqueOrThrow({ where: { id: run.id } })).toMatchObject({
      status: 'failed',
      error: 'Interrupted (the service stopped during the run)',
      finishedAt: expect.any(Date),
    });
  });

  it('the scheduler tick leaves a run alone while another session holds its event lock, and closes it after', async () => {
    const { event, run } = await staleRun();
    const release = await holdLock(event.id);
    try {
      await matchingSchedulerTick(testContainer());
      expect((await prisma.matchingRun.findUniqueOrThrow({ where: { id: run.id } })).status).toBe('running');
    } finally {
      await release();
    }
    await matchingSchedulerTick(testContainer());
    expect((await prisma.matchingRun.findUniqueOrThrow({ where: { id: run.id } })).status).toBe('failed');
  });

  it('the server marks runs left "running" failed at start-up (scheduler off), but not one whose lock is held', async () => {
    const { run: stale } = await staleRun();
    const { event: busyEvent, run: busy } = await staleRun();
    const release = await holdLock(busyEvent.id);
    const server = await startServer(childEnv({ MATCHING_SCHEDULER_ENABLED: 'false' }));
    try {
      await waitForHealth(server);
      expect(await prisma.matchingRun.findUniqueOrThrow({ where: { id: stale.id } })).toMatchObject({
        status: 'failed',
        error: expect.stringContaining('Interrupted'),
      });
      expect((await prisma.matchingRun.findUniqueOrThrow({ where: { id: busy.id } })).status).toBe('running');
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
      await release();
    }
    await prisma.matchingRun.update({ where: { id: busy.id }, data: { status: 'failed', finishedAt: new Date() } });
  });
});

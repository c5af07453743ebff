import { config } from '../../config/index.js';
import { logger } from '../../lib/logger.js';
import { prisma } from '../../lib/prisma.js';
import { tryLockEvent } from './matching.lock.js';
import { executeLockedRun, type MatchingRunView } from './matching.service.js';

/**
 * Scheduled matching: once an event's registration deadline has passed and no run has
 * happened since (matchingRunAt null or earlier than the deadline), the service runs
 * matching by itself, trigger "scheduled". Exactly once per deadline across instances:
 * each instance takes the event's advisory lock with a try-lock (a busy event is skipped,
 * its holder is running it) and re-checks the condition under the lock, so an instance
 * that gets the lock after another one finished sees the fresh matchingRunAt and stops.
 * A failed run leaves matchingRunAt unchanged and is retried 5 minutes later.
 */

/** After a failed scheduled run, the next attempt waits this long (no run row every tick). */
export const SCHEDULED_RETRY_AFTER_FAILURE_MS = 5 * 60_000;

/** Events that are due now (the deadline has passed, no run since). */
async function dueEvents(now: Date) {
  const events = await prisma.event.findMany({
    where: {
      registrationDeadline: { lte: now },
      OR: [{ matchingRunAt: null }, { matchingRunAt: { lt: prisma.event.fields.registrationDeadline } }],
    },
    select: { id: true },
    orderBy: { registrationDeadline: 'asc' },
  });
  return events.map((e) => e.id);
}

/** A scheduled run of the event failed a short while ago: wait before trying again. */
async function failedRecently(eventId: number, now: Date): Promise<boolean> {
  const failed = await prisma.matchingRun.findFirst({
    where: { eventId, trigger: 'scheduled', status: 'failed', startedAt: { gt: new Date(now.getTime() - SCHEDULED_RETRY_AFTER_FAILURE_MS) } },
    select: { id: true },
  });
  return failed !== null;
}

function isDue(e: { registrationDeadline: Date | null; matchingRunAt: Date | null }, now: Date): boolean {
  if (!e.registrationDeadline || e.registrationDeadline > now) return false;
  return !e.matchingRunAt || e.matchingRunAt < e.registrationDeadline;
}

/** One pass of the scheduler: runs every due event it can lock. Returns the runs it made. */
export async function matchingSchedulerTick(now: () => Date = () => new Date()): Promise<MatchingRunView[]> {
  const runs: MatchingRunView[] = [];
  for (const eventId of await dueEvents(now())) {
    const release = await tryLockEvent(eventId);
    if (!release) continue; // another instance (or a manual run) is on it
    try {
      const event = await prisma.event.findUnique({ where: { id: eventId } });
      if (!event || !isDue(event, now()) || (await failedRecently(eventId, now()))) continue;
      runs.push(await executeLockedRun(event, 'scheduled', { userId: null, username: null }));
    } catch (err) {
      logger.error({ err, eventId }, 'scheduled matching run could not start');
    } finally {
      await release();
    }
  }
  return runs;
}

/** Starts the scheduled matching runs; returns a function that stops them (awaiting a run in progress). */
export function startMatchingScheduler(): () => Promise<void> {
  let current: Promise<unknown> | undefined;
  let stopped = false;
  const tick = () => {
    if (stopped || current) return; // never two ticks of one instance at once
    current = matchingSchedulerTick()
      .catch((err: unknown) => logger.error({ err }, 'matching scheduler tick failed'))
      .finally(() => {
        current = undefined;
      });
  };
  const timer = setInterval(tick, config.matchingScheduler.intervalMs);
  timer.unref();
  // First look shortly after the start, so a deadline that passed while we were down is handled.
  const first = setTimeout(tick, 1_000);
  first.unref();
  return async () => {
    stopped = true;
    clearInterval(timer);
    clearTimeout(first);
    await current;
  };
}

/**
 * How soon V8 optimises the service's hot functions with TurboFan (V8_TURBOFAN_CALLS;
 * docs/operations.md "Runtimes", docs/event-day.md "Optimised sooner").
 *
 * Measured at 3 000 dancers: until the request path runs as TurboFan code, about a tenth of what
 * each request allocates survives a young-generation collection and is promoted at the next
 * (5-8 MB a collection at 600 requests a second, for the first ~10 s of polling after a start;
 * with the interpreter alone it never stops), although a full collection finds none of it alive.
 * The pauses it costs (10-30 ms) set the first rounds' p99. Node 24's V8 compiled a hot function
 * with TurboFan only after ~15 000 calls (Node 22's by 3 500); after 1 000 the survivors are gone
 * in the first seconds. Node 20's V8 (11.3) has no such setting: nothing is changed there.
 */
import { setFlagsFromString } from 'node:v8';

/** The first V8 major version with `--invocation-count-for-turbofan` among the supported runtimes (Node 22: 12.4). */
const FIRST_V8_WITH_COUNT = 12;

/**
 * Sets V8's TurboFan call count to `calls` before the service's code has run much (0: V8's own).
 * Returns whether it was set: false for 0 and on a V8 that has no such setting (Node 20).
 */
export function optimiseAfterCalls(calls: number, v8Version: string = process.versions.v8): boolean {
  if (calls === 0 || Number(v8Version.split('.')[0]) < FIRST_V8_WITH_COUNT) return false;
  setFlagsFromString(`--invocation-count-for-turbofan=${calls}`);
  return true;
}

/**
 * V8's allocation-site pretenuring (V8_PRETENURING, off unless set; docs/operations.md
 * "Runtimes"). Once most objects of one literal (`[]`, `{…}`) outlive a young-generation
 * collection, V8 allocates that literal's later objects straight into the old generation. For a
 * long-lived object whose array field is replaced at every write (engine.io's write buffer: a
 * connection's current `[]` lives until its next packet, so nearly all of them survive while the
 * room is quiet), every later array is then born old, and when it dies it still points at the
 * young packet and backing store it held: those survive every young collection, are promoted,
 * and stay until the next full collection. Measured at 3 000 dancers in a 5 messages/s chat:
 * 4.9 MB promoted at each young collection (every ~1.4 s, pauses 15-27 ms) with pretenuring,
 * 0.1-0.2 MB (pauses 3-12 ms) without (docs/event-day.md "2026-11-28 02:40-04:30 UTC").
 * Returns whether it was turned off (false when `allowed`).
 */
export function pretenureAllocationSites(allowed: boolean): boolean {
  if (allowed) return false;
  setFlagsFromString('--no-allocation-site-pretenuring');
  return true;
}

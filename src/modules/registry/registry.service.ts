import type { Actor } from '../../lib/actor.js';
import type { LookupQuery } from './registry.schemas.js';
import type { Clock } from '../../lib/clock.js';
import { AppError } from '../../lib/errors.js';
import type { Logger } from '../../lib/logger.js';

/**
 * Lookup of a dancer in the external competitor registry (docs/security.md "Outbound registry lookup").
 * Upstream: form-encoded POST `num=<id>` to REGISTRY_LOOKUP_URL, JSON answer shaped like
 * tests/fixtures/registry-lookup-29012.json. Results (found and not
 * found) are cached in memory, bounded, with a TTL; upstream failures are not cached.
 */
export interface RegistryDivision {
  abbreviation: string;
  points: number;
  role: 'Leader' | 'Follower';
}

export interface RegistryDancer {
  registryId: string;
  firstName: string;
  lastName: string;
  primaryRole: 'Leader' | 'Follower' | null;
  divisions: RegistryDivision[];
}

const FOUND_TTL_MS = 60 * 60 * 1000;
const NOT_FOUND_TTL_MS = 10 * 60 * 1000;
const CACHE_MAX_ENTRIES = 1000;
const MAX_BODY_BYTES = 2 * 1024 * 1024;

const dancerNotFound = () => new AppError('REGISTRY_DANCER_NOT_FOUND');
const upstreamFailed = () => new AppError('REGISTRY_UNAVAILABLE');
const upstreamTimeout = () => new AppError('REGISTRY_TIMEOUT');

/** The registry spells All-Stars `ALS`; our division is `ALL`. */
const DIVISION_ALIASES: Record<string, string> = { ALS: 'ALL' };

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown) => (typeof v === 'string' ? v.trim() : typeof v === 'number' ? String(v) : '');

function roleOf(text: unknown): 'Leader' | 'Follower' | null {
  const t = str(text).toLowerCase();
  if (t.includes('follow')) return 'Follower';
  if (t.includes('lead')) return 'Leader';
  return null;
}

/** placements: `[]` when none, else `{ <style>: { <abbr>: { division: { abbreviation }, total_points } } }`. */
function divisionsOf(side: unknown, role: 'Leader' | 'Follower'): RegistryDivision[] {
  if (!isObject(side) || !isObject(side.placements)) return [];
  const out: RegistryDivision[] = [];
  for (const style of Object.values(side.placements)) {
    if (!isObject(style)) continue;
    for (const [key, entry] of Object.entries(style)) {
      if (!isObject(entry)) continue;
      const raw = (isObject(entry.division) ? str(entry.division.abbreviation) : '') || key;
      const abbreviation = raw.toUpperCase();
      const points = Number(entry.total_points);
      out.push({
        abbreviation: DIVISION_ALIASES[abbreviation] ?? abbreviation,
        points: Number.isFinite(points) ? points : 0,
        role,
      });
    }
  }
  return out;
}

/** Maps the upstream JSON to our shape; null when it holds no dancer. Exported for tests. */
export function parseRegistryResponse(json: unknown, requestedId: string): RegistryDancer | null {
  if (!isObject(json)) return null;
  const dancer = [json.leader, json.follower, json.dominate_data]
    .map((side) => (isObject(side) && isObject(side.dancer) ? side.dancer : undefined))
    .find(Boolean);
  const firstName = str(json.dancer_first) || str(dancer?.first_name);
  const lastName = str(json.dancer_last) || str(dancer?.last_name);
  const registryId = str(json.dancer_wsdcid) || str(dancer?.wscid);
  if (!registryId && !firstName && !lastName) return null;
  return {
    registryId: registryId || requestedId,
    firstName,
    lastName,
    primaryRole: roleOf(json.short_dominate_role) ?? roleOf(json.dominate_role),
    divisions: [...divisionsOf(json.leader, 'Leader'), ...divisionsOf(json.follower, 'Follower')],
  };
}

/**
 * The body as text, read chunk by chunk after decompression; undefined (and the stream
 * cancelled) as soon as it holds more than `limit` bytes.
 */
async function readCapped(response: Response, limit: number): Promise<string | undefined> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export interface RegistrySettings {
  lookupUrl: string;
  timeoutMs: number;
}

/** Dancer lookups with a bounded in-memory cache (found: 1 h, not found: 10 min; failures are not cached). */
export interface RegistryDeps {
  settings: RegistrySettings;
  logger: Logger;
  clock: Clock;
}

export class RegistryService {
  private readonly cache = new Map<string, { value: RegistryDancer | null; expiresAt: number }>();
  private readonly settings: RegistrySettings;
  private readonly logger: Logger;
  private readonly clock: Clock;

  constructor(deps: RegistryDeps) {
    ({ settings: this.settings, logger: this.logger, clock: this.clock } = deps);
  }

  /**
   * One upstream request under one deadline (REGISTRY_TIMEOUT_MS) that covers the connection,
   * the headers and the whole body: a registry that drips its answer ends at the deadline
   * (504). Redirects are refused, never followed (502): a 307 would replay the POST to wherever
   * it points. The body is counted after decompression while it streams and the request is
   * aborted past MAX_BODY_BYTES (502), so a gzip bomb never inflates in memory.
   */
  private async fetchUpstream(id: string): Promise<RegistryDancer | null> {
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), this.settings.timeoutMs);
    try {
      const response = await fetch(this.settings.lookupUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: new URLSearchParams({ num: id }).toString(),
        signal: deadline.signal,
        redirect: 'manual',
      });
      if (response.status === 404) return null;
      if (response.status >= 300 && response.status < 400) {
        this.logger.warn({ id, status: response.status }, 'registry lookup answered a redirect (not followed)');
        throw upstreamFailed();
      }
      if (!response.ok) {
        this.logger.warn({ id, status: response.status }, 'registry lookup answered an error status');
        throw upstreamFailed();
      }
      const text = await readCapped(response, MAX_BODY_BYTES);
      if (text === undefined) {
        this.logger.warn({ id, limit: MAX_BODY_BYTES }, 'registry lookup answered a body over the limit');
        throw upstreamFailed();
      }
      try {
        return parseRegistryResponse(JSON.parse(text), id);
      } catch {
        this.logger.warn({ id, status: response.status }, 'registry lookup answered something that is not JSON');
        throw upstreamFailed();
      }
    } catch (err) {
      if (err instanceof AppError) throw err;
      if (deadline.signal.aborted) throw upstreamTimeout();
      this.logger.warn({ err, id }, 'registry lookup failed');
      throw upstreamFailed();
    } finally {
      clearTimeout(timer);
      // Releases the connection of an answer not read to its end (redirect, 404, error, too large).
      if (!deadline.signal.aborted) deadline.abort();
    }
  }

  /** The dancer with this registry id (anyone may ask); 404 when the registry does not know them. */
  async lookupDancer(_actor: Actor, { id }: LookupQuery): Promise<RegistryDancer> {
    let dancer = this.cacheGet(id);
    if (dancer === undefined) {
      dancer = await this.fetchUpstream(id);
      this.cacheSet(id, dancer);
    }
    if (!dancer) throw dancerNotFound();
    return dancer;
  }

  private cacheGet(id: string): RegistryDancer | null | undefined {
    const hit = this.cache.get(id);
    if (!hit) return undefined;
    if (hit.expiresAt <= this.clock.now().getTime()) {
      this.cache.delete(id);
      return undefined;
    }
    return hit.value;
  }

  private cacheSet(id: string, value: RegistryDancer | null): void {
    this.cache.delete(id);
    // Map keeps insertion order: evict the oldest entries beyond the bound.
    while (this.cache.size >= CACHE_MAX_ENTRIES) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(id, { value, expiresAt: this.clock.now().getTime() + (value ? FOUND_TTL_MS : NOT_FOUND_TTL_MS) });
  }
}

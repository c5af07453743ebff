import type { Actor } from '../../lib/actor.js';
import type { AvatarSeedParam } from './avatars.schemas.js';
import type { Logger } from '../../lib/logger.js';
import type { UserRecords } from '../users/user-records.js';

/**
 * Avatars served by the service itself (docs/privacy.md): no browser asks a third party for an
 * avatar, so no third party learns who looks at whom, and avatars show offline at a venue.
 *
 * The picture of a seed is rendered here by DiceBear (`@dicebear/core` + the avataaars style of
 * `@dicebear/collection`, both running in this process, no network call): deterministic, so the
 * same seed always gives the same bytes and the route can be cached for a year.
 *
 * Owns User.avatar's form: the absolute URL `<PUBLIC_URL>/api/avatars/<seed>.svg`, written at
 * registration (src/modules/auth/registration.service.ts) and re-pointed at start (`repointStoredUrls`)
 * when PUBLIC_URL changed or a row still holds the old generator's URL. Every view reads the
 * column as it is, so no view has to know PUBLIC_URL.
 */

type Render = (seed: string) => string;

/** Rendered avatars kept in memory (each 3-13 KB; 500 are at most ~7 MB). */
const CACHE_SIZE = 500;

export interface AvatarsServiceDeps {
  /** the avatar column of `User` (owned by the users feature) */
  users: Pick<UserRecords, 'repointAvatars'>;
  logger: Logger;
  /** PUBLIC_URL (no trailing slash) */
  publicUrl: string;
}

export class AvatarsService {
  private renderer: Promise<Render> | undefined;
  private readonly cache = new Map<string, string>();

  constructor(private readonly deps: AvatarsServiceDeps) {}

  /** The SVG of a seed (1-64 of [A-Za-z0-9_-], validated by the router): the same bytes for the same seed. */
  async render(_actor: Actor, { seed }: AvatarSeedParam): Promise<string> {
    const cached = this.cache.get(seed);
    if (cached !== undefined) {
      // most recently used last: the Map's first key is the one to drop
      this.cache.delete(seed);
      this.cache.set(seed, cached);
      return cached;
    }
    const svg = (await this.loadRenderer())(seed);
    this.cache.set(seed, svg);
    if (this.cache.size > CACHE_SIZE) this.cache.delete(this.cache.keys().next().value as string);
    return svg;
  }

  /**
   * Start-up step (src/server.ts): points every stored avatar at this service's avatar route
   * under PUBLIC_URL (UserRecords.repointAvatars, src/modules/users/user-records.ts). Answers the number of rows changed.
   */
  async repointStoredUrls(_actor: Actor): Promise<number> {
    const changed = await this.deps.users.repointAvatars(`${this.deps.publicUrl}/api/avatars/`);
    if (changed > 0) this.deps.logger.info({ users: changed }, 'avatar URLs pointed at this service');
    return changed;
  }

  /** DiceBear is published as ES modules only: loaded once, on the first avatar. */
  private loadRenderer(): Promise<Render> {
    this.renderer ??= (async () => {
      const [{ createAvatar }, { avataaars }] = await Promise.all([
        import('@dicebear/core'),
        import('@dicebear/collection'),
      ]);
      return (seed: string) => createAvatar(avataaars, { seed }).toString();
    })().catch((err: unknown) => {
      this.renderer = undefined;
      throw err;
    });
    return this.renderer;
  }
}

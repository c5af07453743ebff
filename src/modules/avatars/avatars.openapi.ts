import { operation } from '../../docs/openapi-helpers.js';
import { avatarSeedInput } from './avatars.schemas.js';

/** OpenAPI paths of this feature (merged by src/docs/openapi.ts). */
export const avatarsOpenApi: Record<string, unknown> = {
  '/avatars/{seed}.svg': {
    get: operation('get', {
      tags: ['avatars'],
      summary: 'The avatar of a seed, rendered by the service (no third party)',
      description: [
        'Every `avatar` in responses and socket payloads is `<PUBLIC_URL>/api/avatars/<seed>.svg` (the seed is the',
        'username as registered), or null for the placeholder of a deleted account. Rendered in the service by',
        'DiceBear (avataaars style): the same seed always gives the same bytes (at most 16 KB, no script, no external',
        'reference). Not counted by the general rate limit.',
      ].join(' '),
      access: 'public',
      parameters: avatarSeedInput.openapi.parameters,
      ok: {
        '200': {
          description:
            'image/svg+xml; Cache-Control: public, max-age=31536000, immutable; X-Content-Type-Options: nosniff',
          content: { 'image/svg+xml': { schema: { type: 'string', contentMediaType: 'image/svg+xml' } } },
        },
      },
    }),
  },
};

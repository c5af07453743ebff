import { array, dataOf, dateTime, int, json, obj, operation, ref, str } from '../../docs/openapi-helpers.js';

/** OpenAPI paths of this feature (merged by src/docs/openapi.ts). */
export const dashboardOpenApi: Record<string, unknown> = {
  '/dashboard': {
    get: operation('get', {
      tags: ['dashboard'],
      summary: "The caller's dashboard: joined events with counts, incoming match requests",
      description: [
        "Events are ordered by joinedAt, newest first; `heatsCount` counts the caller's heats;",
        '`recordingSuggestions` counts live suggestions (status pending or accepted) with the caller as dancer',
        "(toBeRecorded) or as recorder (toRecord); `activeMatches` counts the caller's accepted (not yet",
        'completed) matches at the event; `videosReceived` counts the completed video hand-offs the caller received in',
        'matches of the event (see /matches/{slug}/transfers); `incomingRequests` are the pending matches targeting the caller at any',
        'event, newest first, as match objects (see /matches). Computed with a fixed number of queries.',
      ].join(' '),
      access: 'user',
      ok: {
        '200': json(
          dataOf(
            obj({
              events: array(
                obj({
                  id: int,
                  slug: str,
                  name: str,
                  location: str,
                  startDate: dateTime,
                  endDate: dateTime,
                  joinedAt: dateTime,
                  heatsCount: int,
                  recordingSuggestions: obj({ toBeRecorded: int, toRecord: int }),
                  activeMatches: int,
                  videosReceived: int,
                }),
              ),
              incomingRequests: array(ref('Match')),
            }),
          ),
        ),
      },
    }),
  },
};

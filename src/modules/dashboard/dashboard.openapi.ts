/** OpenAPI paths of this feature (merged by src/docs/openapi.ts). */
export const dashboardOpenApi: Record<string, unknown> = {
  '/dashboard': {
    get: {
      tags: ['dashboard'],
      summary: "The caller's dashboard: joined events with counts, incoming match requests",
      description: [
        '`data: { events: [{ id, slug, name, location, startDate, endDate, joinedAt, heatsCount,',
        'recordingSuggestions: { toBeRecorded, toRecord }, activeMatches, videosReceived }], incomingRequests: [match] }`.',
        'Decisions: events are ordered by joinedAt, newest first; `heatsCount` counts the caller\'s heats;',
        '`recordingSuggestions` counts live suggestions (status pending or accepted) with the caller as dancer',
        '(toBeRecorded) or as recorder (toRecord); `activeMatches` counts the caller\'s accepted (not yet',
        'completed) matches at the event; `videosReceived` counts the completed video hand-offs the caller received in',
        'matches of the event (see /matches/{slug}/transfers); `incomingRequests` are the pending matches targeting the caller at any',
        'event, newest first, as match objects (see /matches). Computed with a fixed number of queries.',
      ].join(' '),
      responses: {
        '200': { description: '`{ success: true, data: { events, incomingRequests } }`' },
        '401': { description: 'missing or invalid token', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
      },
    },
  },
};

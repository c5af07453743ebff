/**
 * Names and body examples of the OpenAPI operations, applied to the assembled document by
 * src/docs/openapi.ts (tests/docs/operation-ids.test.ts checks them):
 * - `operationId`: camelCase verb + noun, unique, what code generators name their methods.
 *   An operation missing here gets one derived from its method and path (`deriveOperationId`),
 *   so a new route is never without one; give it a better name here.
 * - `examples`: a realistic request body per operation that takes one (validated against the
 *   operation's own body schema by the test).
 */

type Key = `${'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'} /${string}`;

export const OPERATION_IDS: Record<Key, string> = {
  'GET /health': 'getHealth',
  'GET /health/live': 'getLiveness',
  'GET /health/ready': 'getReadiness',
  'GET /docs': 'getApiReferencePage',
  'GET /docs/openapi.json': 'getOpenApiDocument',
  'GET /docs/asyncapi.json': 'getAsyncApiDocument',
  'GET /docs/init.js': 'getApiReferenceScript',
  'GET /docs/assets/{file}': 'getApiReferenceAsset',
  'GET /csrf-token': 'getCsrfToken',
  'POST /auth/register': 'registerUser',
  'POST /auth/login': 'loginUser',
  'GET /auth/verify-email': 'verifyEmailByLink',
  'POST /auth/verify-code': 'verifyEmailByCode',
  'POST /auth/resend-verification': 'resendVerification',
  'POST /auth/request-password-reset': 'requestPasswordReset',
  'POST /auth/reset-password': 'resetPassword',
  'GET /users/me': 'getCurrentUser',
  'PATCH /users/me': 'updateCurrentUser',
  'PATCH /users/me/password': 'changePassword',
  'GET /users/{username}': 'getUserProfile',
  'GET /users/{username}/ratings': 'listUserRatings',
  'GET /registry/lookup': 'lookupRegistryDancer',
  'GET /events': 'listEvents',
  'GET /events/{slug}': 'getEvent',
  'GET /events/{slug}/details': 'getEventDetails',
  'GET /events/{slug}/checkin-qr': 'getCheckinQrCode',
  'POST /events/checkin/{token}': 'checkInToEvent',
  'DELETE /events/{slug}/leave': 'leaveEvent',
  'POST /admin/events': 'createEvent',
  'PATCH /admin/events/{slug}': 'updateEvent',
  'GET /events/{slug}/messages': 'listEventMessages',
  'GET /divisions': 'listDivisions',
  'GET /competition-types': 'listCompetitionTypes',
  'POST /events/{slug}/heats': 'replaceMyHeats',
  'GET /events/{slug}/heats/me': 'listMyHeats',
  'GET /events/{slug}/heats/all': 'listEventHeats',
  'DELETE /events/{slug}/heats/{id}': 'deleteHeat',
  'PUT /events/{slug}/competitor-number': 'setCompetitorNumber',
  'PUT /events/{slug}/recorder-opt-out': 'setRecorderOptOut',
  'PUT /events/{slug}/registration-deadline': 'setRegistrationDeadline',
  'PUT /events/{slug}/schedule-config': 'setScheduleConfig',
  'POST /matches': 'createMatch',
  'GET /matches': 'listMatches',
  'GET /matches/{slug}': 'getMatch',
  'DELETE /matches/{slug}': 'deleteMatch',
  'PUT /matches/{slug}/accept': 'acceptMatch',
  'GET /matches/{slug}/messages': 'listMatchMessages',
  'POST /matches/{slug}/ratings': 'createRating',
  'POST /events/{slug}/run-matching': 'runEventMatching',
  'GET /events/{slug}/match-suggestions': 'listMatchSuggestions',
  'PUT /events/{slug}/match-suggestions/{id}/status': 'setMatchSuggestionStatus',
  'GET /admin/events/{slug}/matching-runs': 'listMatchingRuns',
  'POST /admin/events/{slug}/matching-runs': 'createMatchingRun',
  'GET /admin/events/{slug}/matching-runs/{runId}/suggestions': 'listMatchingRunSuggestions',
  'GET /admin/events/{slug}/matching-runs/{runId}': 'getMatchingRun',
  'GET /admin/events/{slug}/matching-runs/{runId}/export.csv': 'exportMatchingRunCsv',
  'GET /admin/activity-logs': 'listActivityLogs',
  'GET /admin/activity-logs/actions': 'listActivityLogActions',
  'GET /admin/activity-logs/stats': 'getActivityLogStats',
  'GET /dashboard': 'getDashboard',
  'GET /webrtc/ice-servers': 'getIceServers',
  'POST /matches/{slug}/transfers': 'createTransfer',
  'GET /matches/{slug}/transfers': 'listTransfers',
  'PATCH /matches/{slug}/transfers/{id}': 'updateTransfer',
  'GET /metrics': 'getMetrics',
  // privacy
  'DELETE /users/me': 'deleteCurrentUser',
  'GET /users/me/export': 'exportCurrentUserData',
  'DELETE /admin/users/{username}': 'deleteUser',
  'GET /admin/privacy': 'getPrivacySettings',
  'GET /avatars/{seed}.svg': 'getAvatar',
  // moderation
  'GET /users/me/blocks': 'listBlocks',
  'POST /users/{username}/block': 'blockUser',
  'DELETE /users/{username}/block': 'unblockUser',
  'POST /reports': 'createReport',
  'GET /admin/reports': 'listReports',
  'PATCH /admin/reports/{id}': 'updateReport',
  'POST /admin/users/{username}/suspend': 'suspendUser',
  'DELETE /admin/users/{username}/suspend': 'unsuspendUser',
  'DELETE /admin/messages/{id}': 'deleteMessage',
  // fair matching
  'GET /events/{slug}/matching-settings': 'getMatchingSettings',
  'PUT /events/{slug}/matching-settings': 'setMatchingSettings',
  'GET /events/{slug}/recording-preferences': 'getRecordingPreferences',
  'PUT /events/{slug}/recording-preferences': 'setRecordingPreferences',
  'POST /admin/events/{slug}/match-suggestions': 'pinMatchSuggestion',
  'DELETE /admin/events/{slug}/match-suggestions/{id}': 'removeMatchSuggestion',
  'POST /admin/events/{slug}/participants/{userId}/absent': 'markParticipantAbsent',
  'DELETE /admin/events/{slug}/participants/{userId}/absent': 'clearParticipantAbsent',
};

const VERBS: Record<string, string> = { get: 'get', post: 'create', put: 'set', patch: 'update', delete: 'delete' };
const camel = (words: string[]) =>
  words
    .map((w, i) => (i === 0 ? w.toLowerCase() : w.charAt(0).toUpperCase() + w.slice(1).toLowerCase()))
    .join('');

/** `PUT /events/{slug}/foo-bar` → `setEventsFooBar`: the method's verb and the path's literal words. */
export function deriveOperationId(method: string, path: string): string {
  const words = path
    .split('/')
    .filter((part) => part && !part.startsWith('{'))
    .flatMap((part) => part.split(/[^A-Za-z0-9]+/))
    .filter(Boolean);
  return camel([VERBS[method] ?? method, ...words]);
}

const email = 'anna.nowak@example.com';
const slug = 'Xk3pQ9rT2mWv8bLz';

export const BODY_EXAMPLES: Partial<Record<Key, unknown>> = {
  'POST /auth/register': { username: 'anna_nowak', email, password: 'swing-out-2027', firstName: 'Anna', lastName: 'Nowak', registryId: '29012' },
  'POST /auth/login': { email, password: 'swing-out-2027' },
  'POST /auth/verify-code': { email, code: '482913' },
  'POST /auth/resend-verification': { email },
  'POST /auth/request-password-reset': { email },
  'POST /auth/reset-password': { token: 'q8ZbW4n0y1rVt7Kc3XmP5sLh9DfJ2gAe', newPassword: 'sugar-push-2027' },
  'PATCH /users/me': { city: 'Kraków', country: 'Poland', instagramUrl: 'https://www.instagram.com/anna.dances' },
  'PATCH /users/me/password': { currentPassword: 'swing-out-2027', newPassword: 'sugar-push-2027' },
  'POST /admin/events': {
    name: 'Warsaw Swing Weekend 2027',
    location: 'Warsaw, Poland',
    startDate: '2027-03-12T10:00:00Z',
    endDate: '2027-03-14T22:00:00Z',
    worldRegistryId: '555',
    description: 'Jack & Jill and Strictly in Novice to All-Stars.',
  },
  'PATCH /admin/events/{slug}': { location: 'Kraków, Poland', description: 'Moved to the Kraków ballroom.' },
  'POST /events/{slug}/heats': {
    heats: [
      { divisionId: 2, competitionTypeId: 1, heatNumber: 3, role: 'Leader' },
      { divisionId: 2, competitionTypeId: 2, heatNumber: 1, role: 'Leader' },
    ],
  },
  'PUT /events/{slug}/competitor-number': { competitorNumber: '142' },
  'PUT /events/{slug}/recorder-opt-out': { optOut: true },
  'PUT /events/{slug}/registration-deadline': { registrationDeadline: '2027-03-10T20:00:00Z' },
  'PUT /events/{slug}/schedule-config': { scheduleConfig: { slots: [{ order: 1, divisionIds: [1, 2] }, { order: 2, divisionIds: [3] }] } },
  'POST /matches': { targetUserId: 42, eventSlug: slug },
  'POST /matches/{slug}/ratings': { score: 5, comment: 'Great connection, steady camera work.', wouldCollaborateAgain: true },
  'POST /events/{slug}/run-matching': { dryRun: true },
  'PUT /events/{slug}/match-suggestions/{id}/status': { status: 'accepted' },
  'POST /admin/events/{slug}/matching-runs': { dryRun: false },
  'POST /matches/{slug}/transfers': {
    fileName: 'jnj-novice-heat3.mp4',
    size: 48_234_112,
    sha256: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
  },
  'PATCH /matches/{slug}/transfers/{id}': { status: 'completed' },
  'DELETE /users/me': { currentPassword: 'swing-out-2027' },
  'PUT /events/{slug}/matching-settings': { bufferBefore: 1, bufferAfter: 1, maxRecordingsPerPerson: 2, optOutMode: 'exclude' },
  'PUT /events/{slug}/recording-preferences': {
    maxRecordings: 2,
    unavailable: [
      { competitionTypeId: 1, heatNumber: 3 },
      { competitionTypeId: 2, heatNumber: 1, divisionId: 4 },
    ],
  },
  'POST /admin/events/{slug}/match-suggestions': { heatId: 318, recorderId: 42 },
  'POST /reports': {
    targetType: 'message',
    targetId: 1842,
    reason: 'harassment',
    details: 'Repeated unwanted comments in the event chat.',
  },
  'PATCH /admin/reports/{id}': { status: 'resolved', note: 'Talked to both dancers at the venue.' },
  'POST /admin/users/{username}/suspend': { reason: 'Harassment reported by three dancers', until: '2027-03-15T00:00:00Z' },
};

/** Sets `operationId` on every operation and `example` on every JSON request body listed above. */
export function applyOperationMeta(paths: Record<string, Record<string, unknown>>): void {
  for (const [path, item] of Object.entries(paths)) {
    for (const [method, op] of Object.entries(item)) {
      const key = `${method.toUpperCase()} ${path}` as Key;
      // copies: a fragment may share one operation object between two paths
      const operation: Record<string, unknown> = { ...(op as Record<string, unknown>), operationId: OPERATION_IDS[key] ?? deriveOperationId(method, path) };
      const body = operation.requestBody as { content?: Record<string, unknown> } | undefined;
      const json = body?.content?.['application/json'];
      if (body && json && key in BODY_EXAMPLES) {
        operation.requestBody = { ...body, content: { ...body.content, 'application/json': { ...(json as object), example: BODY_EXAMPLES[key] } } };
      }
      item[method] = operation;
    }
  }
}

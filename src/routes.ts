import type { Router } from 'express';
import type { Container } from './container.js';
import { createActivityLogRouter } from './modules/activity-log/activity-log.router.js';
import { createAuthRouter } from './modules/auth/auth.router.js';
import { createChatRouter } from './modules/chat/chat.router.js';
import { createDashboardRouter } from './modules/dashboard/dashboard.router.js';
import { createEventsRouter } from './modules/events/events.router.js';
import { createHealthRouter } from './modules/health/health.router.js';
import { createEventSettingsRouter } from './modules/event-settings/event-settings.router.js';
import { createHeatsRouter } from './modules/heats/heats.router.js';
import { createMatchesRouter } from './modules/matches/matches.router.js';
import { createMatchingRouter } from './modules/matching/matching.router.js';
import { createMatchingPeopleRouter } from './modules/matching/matching-people.router.js';
import { createRegistryRouter } from './modules/registry/registry.router.js';
import { createUsersRouter } from './modules/users/users.router.js';
import { createWebrtcRouter } from './modules/webrtc/webrtc.router.js';
import { createDocsRouter } from './docs/docs.router.js';
import { createPrivacyRouter } from './modules/privacy/privacy.router.js';
import { createModerationRouter } from './modules/moderation/moderation.router.js';

/** Where every feature router is mounted (the metrics' route templates start with it). */
export const API_MOUNT_PATH = '/api';

/** Every feature router, mounted at API_MOUNT_PATH. Each router holds its full paths. */
export const createRouters = (c: Container): Router[] => [
  createHealthRouter(c),
  createDocsRouter(),
  createAuthRouter(c),
  createUsersRouter(c),
  createRegistryRouter(c),
  createEventsRouter(c),
  createChatRouter(c),
  createHeatsRouter(c),
  createEventSettingsRouter(c),
  createMatchesRouter(c),
  createMatchingRouter(c),
  createMatchingPeopleRouter(c),
  createActivityLogRouter(c),
  createDashboardRouter(c),
  createWebrtcRouter(c),
  createPrivacyRouter(c),
  createModerationRouter(c),
];

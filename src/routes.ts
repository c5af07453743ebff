import type { Router } from 'express';
import type { Container } from './container.js';
import { createActivityLogRouter } from './modules/activity-log/activity-log.router.js';
import { authRouter } from './modules/auth/auth.router.js';
import { chatRouter } from './modules/chat/chat.router.js';
import { dashboardRouter } from './modules/dashboard/dashboard.router.js';
import { eventsRouter } from './modules/events/events.router.js';
import { createHealthRouter } from './modules/health/health.router.js';
import { heatsRouter } from './modules/heats/heats.router.js';
import { matchesRouter } from './modules/matches/matches.router.js';
import { createMatchingRouter } from './modules/matching/matching.router.js';
import { createRegistryRouter } from './modules/registry/registry.router.js';
import { usersRouter } from './modules/users/users.router.js';
import { docsRouter } from './docs/docs.router.js';

/** Every feature router, mounted at /api. Each router holds its full paths. */
export const createRouters = (c: Container): Router[] => [
  createHealthRouter(c),
  docsRouter,
  authRouter,
  usersRouter,
  createRegistryRouter(c),
  eventsRouter,
  chatRouter,
  heatsRouter,
  matchesRouter,
  createMatchingRouter(c),
  createActivityLogRouter(c),
  dashboardRouter,
];

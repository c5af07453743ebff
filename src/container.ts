import type { Config } from './config/index.js';
import { TokenAuthenticator } from './lib/auth.js';
import { ReadCache } from './lib/read-cache.js';
import { createCachedRead, createHotLane } from './middleware/cached-read.js';
import { systemClock, type Clock } from './lib/clock.js';
import { createLogger, prettyTransport, type Logger } from './lib/logger.js';
import { buildInfo, Metrics } from './lib/metrics.js';
import { Mailer } from './lib/mailer.js';
import { DEFAULT_HASHER_LIMITS, PasswordHasher } from './lib/password-hasher.js';
import { MailQueue } from './lib/mail-queue.js';
import { Database, type DatabaseKind } from './lib/prisma.js';
import { RedisConnections } from './lib/redis.js';
import { createAuthGuards, type AuthGuards } from './middleware/auth.js';
import { createCsrf, type Csrf } from './middleware/csrf.js';
import { createRateLimiters, createUserRateLimiter, type RateLimiters } from './middleware/rate-limit.js';
import { ActivityLogService } from './modules/activity-log/activity-log.service.js';
import { RegistryService } from './modules/registry/registry.service.js';
import { AccountMails } from './modules/auth/account-mails.js';
import { CurrentPasswordCheck } from './modules/auth/current-password.js';
import { CaptchaVerifier } from './modules/auth/captcha.js';
import { EmailVerificationService } from './modules/auth/email-verification.service.js';
import { LoginService } from './modules/auth/login.service.js';
import { PasswordResetService } from './modules/auth/password-reset.service.js';
import { RegistrationService } from './modules/auth/registration.service.js';
import { AccountService } from './modules/users/account.service.js';
import { OperatorAccountsService } from './modules/users/operator-accounts.service.js';
import { ProfilesService } from './modules/users/profiles.service.js';
import { UserRecords } from './modules/users/user-records.js';
import { EventAccess } from './modules/events/event-access.js';
import { createChatFloodLimiter } from './modules/chat/redis-flood-limit.js';
import { TokenBucketLimiter, type FloodLimiter } from './lib/flood-limit.js';
import { MatchAccess } from './modules/matches/match-access.js';
import { TransfersService } from './modules/webrtc/transfers.service.js';
import { WebrtcService } from './modules/webrtc/webrtc.service.js';
import { ChatService } from './modules/chat/chat.service.js';
import { validateContent } from './modules/chat/chat.schemas.js';
import { EventMessagesService } from './modules/chat/event-messages.service.js';
import { EventRoomService } from './modules/chat/event-room.service.js';
import { EventsService } from './modules/events/events.service.js';
import { CheckinService } from './modules/events/checkin.service.js';
import { DashboardService } from './modules/dashboard/dashboard.service.js';
import { HeatsService } from './modules/heats/heats.service.js';
import { EventSettingsService } from './modules/event-settings/event-settings.service.js';
import { MatchesService } from './modules/matches/matches.service.js';
import { MatchRequestsService } from './modules/matches/match-requests.service.js';
import { MatchRatingsService } from './modules/matches/match-ratings.service.js';
import { PrivateChatService } from './modules/matches/private-chat.service.js';
import { ReferenceData } from './lib/reference-data.js';
import { MatchingLock } from './modules/matching/matching.lock.js';
import { MatchingRunsService } from './modules/matching/matching-runs.service.js';
import { MatchingRunReportsService } from './modules/matching/matching-run-reports.service.js';
import { SuggestionsService } from './modules/matching/suggestions.service.js';
import { MatchingPeopleService } from './modules/matching/matching-people.service.js';
import { MatchingSettingsService } from './modules/matching/matching-settings.service.js';
import { Notifier } from './realtime/notifier.js';
import { HealthService } from './modules/health/health.service.js';
import { AvatarsService } from './modules/avatars/avatars.service.js';
import { AccountDeletionService } from './modules/privacy/account-deletion.service.js';
import { DataExportService } from './modules/privacy/data-export.service.js';
import { IpPurgeSchedule } from './modules/privacy/ip-retention.job.js';
import { IpRetentionService } from './modules/privacy/ip-retention.service.js';

export type { InstanceState } from './lib/lifecycle.js';
import type { InstanceState } from './lib/lifecycle.js';
import { BlocksService } from './modules/moderation/blocks.service.js';
import { ModerationService } from './modules/moderation/moderation.service.js';
import { ReportsService } from './modules/moderation/reports.service.js';

/** What a container may be given instead of building it (tests, benchmarks). */
export interface ContainerOverrides {
  logger?: Logger;
  metrics?: Metrics;
  clock?: Clock;
  mailer?: Mailer;
  database?: Database;
  /** where config.databaseUrl came from (the embedded server reports 'embedded') */
  databaseKind?: DatabaseKind;
  /** bcrypt with other concurrency or queue limits (tests of the 503) */
  passwordHasher?: PasswordHasher;
  /** the chat flood limiter (scripts/bench-chat.ts passes one that always allows) */
  chatFlood?: FloodLimiter;
  /** false: no read cache, every read goes to the database */
  readCache?: false;
}

/**
 * The composition root: builds every service from explicit dependencies. The app
 * (src/app.ts), the real-time layer (src/realtime/io.ts), the scheduler and the CLI receive
 * it. Only src/server.ts, src/cli.ts, benchmarks and tests create one. Creating it connects
 * to nothing: the database pool and Redis open on first use.
 */
export function createContainer(config: Config, overrides: ContainerOverrides = {}) {
  const logger =
    overrides.logger ?? createLogger(config.logLevel, prettyTransport(config.env, process.stdout.isTTY === true));
  const clock = overrides.clock ?? systemClock;
  const databaseUrl = requireDatabaseUrl(config);
  const database =
    overrides.database ?? new Database(databaseUrl, overrides.databaseKind ?? 'postgres', logger, config.databasePool);
  const prisma = database.prisma;
  // The mail queue is built below; the gauge reads it at scrape time.
  const mailQueueRef: { current?: MailQueue } = {};
  const metrics =
    overrides.metrics ??
    new Metrics({
      // the read cache's fences are statements too (src/lib/read-cache.ts)
      databasePool: () => {
        const pool = database.poolStats();
        return { ...pool, queries: pool.queries + (readCache?.stats().fences ?? 0) };
      },
      build: buildInfo(config),
      mailQueue: async () => mailQueueRef.current?.stats(),
      readCache: () => readCache?.stats(),
    });
  const notifier = new Notifier(logger);
  const mailer = overrides.mailer ?? new Mailer(config, logger, metrics);
  // Durable mail: services queue mails in the transaction of their change; src/server.ts starts the worker.
  // Jobs hold references; the account mails are rendered (secrets created) when sent (src/modules/auth/account-mails.ts).
  // the writes of User (src/modules/users/user-records.ts)
  const userRecords = new UserRecords(prisma);
  const accountMails = new AccountMails({
    db: prisma,
    users: userRecords,
    clock,
    settings: { frontendUrl: config.frontendUrl },
  });
  const mailQueue = new MailQueue(databaseUrl, config.mailQueue, mailer, logger, (ref) => accountMails.render(ref));
  mailQueueRef.current = mailQueue;
  const redis = new RedisConnections(config.redisUrl, logger, config.redisKeyPrefix);
  // exact caches of the hot reads (src/lib/read-cache.ts); connects on the first read
  const readCache =
    overrides.readCache === false
      ? undefined
      : new ReadCache({ connectionString: databaseUrl, logger, settings: { maxWeight: config.readCache.maxBytes } });
  const tokens = new TokenAuthenticator(database.sql, config.jwt, readCache);
  const limiters: RateLimiters = createRateLimiters(config, redis, logger);

  const audit = new ActivityLogService({ db: prisma, notifier, logger, clock });
  const registry = new RegistryService({ settings: config.registry, logger, clock });
  const eventAccess = new EventAccess(prisma);
  const passwordHasher =
    overrides.passwordHasher ?? new PasswordHasher({ rounds: config.bcryptRounds, ...DEFAULT_HASHER_LIMITS });
  const captcha = new CaptchaVerifier({ settings: config.captcha, logger });
  // accounts without a session (docs/security.md): one service per use case
  const registration = new RegistrationService({
    db: prisma,
    users: userRecords,
    audit,
    tokens,
    hasher: passwordHasher,
    mail: mailQueue,
    captcha,
    publicUrl: config.publicUrl,
  });
  const login = new LoginService({
    db: prisma,
    users: userRecords,
    audit,
    tokens,
    hasher: passwordHasher,
    clock,
    metrics,
    lockout: config.lockout,
  });
  const emailVerification = new EmailVerificationService({
    db: prisma,
    users: userRecords,
    audit,
    mail: mailQueue,
    clock,
  });
  const passwordReset = new PasswordResetService({
    db: prisma,
    users: userRecords,
    audit,
    hasher: passwordHasher,
    notifier,
    mail: mailQueue,
    clock,
  });
  // a wrong current password (password or e-mail change) counts toward the login lockout
  const currentPassword = new CurrentPasswordCheck({
    db: prisma,
    users: userRecords,
    hasher: passwordHasher,
    audit,
    lockout: config.lockout,
  });
  // the signed-in user's account, profiles, and the operator's accounts
  const profiles = new ProfilesService({ db: prisma, sql: database.sql });
  const account = new AccountService({
    db: prisma,
    users: userRecords,
    audit,
    tokens,
    hasher: passwordHasher,
    notifier,
    mail: mailQueue,
    currentPassword,
    accountMails,
    emailChangeLimit: config.rateLimit.enabled ? config.emailChange : undefined,
  });
  const operatorAccounts = new OperatorAccountsService({
    users: userRecords,
    audit,
    hasher: passwordHasher,
    notifier,
    publicUrl: config.publicUrl,
  });
  /** ~5 chat messages per second with bursts of 10, per user, event and private chats together (shared through Redis when set) */
  const chatFlood = overrides.chatFlood ?? createChatFloodLimiter(redis, logger, () => clock.now().getTime());
  const chat = new ChatService({ db: prisma });
  const { roomJoins } = config.realtime;
  /** room joins (join_*) per socket, checked before any database work (src/realtime/io.ts) */
  const roomJoinLimit = new TokenBucketLimiter<string>(roomJoins.perSecond, roomJoins.burst, () =>
    clock.now().getTime(),
  );
  // the event group chat: its room (join, history) and sending to it
  const eventRoom = new EventRoomService({ db: prisma, sql: database.sql });
  const eventMessages = new EventMessagesService({
    db: prisma,
    chat,
    flood: chatFlood,
    audit,
    notifier,
    clock,
    metrics,
    settings: { requireEmailVerification: config.requireEmailVerification },
  });
  const checkin = new CheckinService({
    db: prisma,
    chat,
    notifier,
    audit,
    eventAccess,
    clock,
    settings: { ...config.checkin, frontendUrl: config.frontendUrl },
  });
  const events = new EventsService({ db: prisma, sql: database.sql, audit, eventAccess, checkin });
  const matchAccess = new MatchAccess(prisma);
  const webrtc = new WebrtcService({ matches: matchAccess, config: config.webrtc, clock, notifier });
  const transfers = new TransfersService({ db: prisma, matches: matchAccess, clock, notifier });
  const dashboard = new DashboardService({ sql: database.sql });
  const referenceData = new ReferenceData(prisma);
  const heats = new HeatsService({ db: prisma, notifier, audit, eventAccess, reference: referenceData });
  const eventSettings = new EventSettingsService({
    audit,
    eventAccess,
    reference: referenceData,
    events,
    checkin,
  });
  // what the private chat uses of the chat core (MatchChat)
  const matchChat = {
    validateContent,
    createMessage: chat.createMessage.bind(chat),
    listRoomMessages: chat.listRoomMessages.bind(chat),
  };
  const matches = new MatchesService({ db: prisma, sql: database.sql, notifier, audit, chat, clock });
  const matchRequests = new MatchRequestsService({
    db: prisma,
    notifier,
    audit,
    eventAccess,
    chat,
    clock,
    settings: {
      requireEmailVerification: config.requireEmailVerification,
      requestLimit: new TokenBucketLimiter(config.matchRequests.perMinute / 60, config.matchRequests.burst, () =>
        clock.now().getTime(),
      ),
    },
  });
  const ratings = new MatchRatingsService({ db: prisma, audit });
  const privateChat = new PrivateChatService({
    db: prisma,
    chat: matchChat,
    chatFlood,
    metrics,
    settings: { requireEmailVerification: config.requireEmailVerification },
  });
  // safety and moderation (docs/moderation.md)
  const blocks = new BlocksService({ db: prisma, matches });
  const reports = new ReportsService({ db: prisma, audit, clock });
  const moderation = new ModerationService({ db: prisma, audit, notifier, clock, chat, users: userRecords });
  const matchingLock = new MatchingLock(requireDatabaseUrl(config));
  const matching = new MatchingRunsService({
    db: prisma,
    notifier,
    audit,
    eventAccess,
    lock: matchingLock,
    logger,
    clock,
    metrics,
  });
  const matchingReports = new MatchingRunReportsService({ db: prisma, audit, eventAccess });
  const suggestions = new SuggestionsService({
    db: prisma,
    sql: database.sql,
    notifier,
    audit,
    eventAccess,
    lock: matchingLock,
    clock,
    matches,
    settings: { requireEmailVerification: config.requireEmailVerification },
  });
  const matchingSettings = new MatchingSettingsService({
    db: prisma,
    audit,
    eventAccess,
    lock: matchingLock,
    referenceData,
  });
  const matchingPeople = new MatchingPeopleService({ db: prisma, audit, eventAccess, lock: matchingLock, clock });

  const instance: InstanceState = { shuttingDown: false };
  const health = new HealthService({
    database,
    instance,
    sharedRoundTrip: readCache ? () => readCache.fence() : undefined,
  });
  const avatars = new AvatarsService({ users: userRecords, logger, publicUrl: config.publicUrl });
  // Privacy (docs/privacy.md): account deletion and export through the owning features' services.
  const accountDeletion = new AccountDeletionService({
    prisma,
    users: userRecords,
    currentPassword,
    audit,
    notifier,
    mailQueue,
    events,
    matches,
    ratings,
    suggestions,
    chat,
    clock,
  });
  const dataExport = new DataExportService({
    prisma,
    audit,
    events,
    heats,
    chat,
    matches,
    ratings,
    suggestions,
    transfers,
    clock,
  });
  const ipRetention = new IpRetentionService({
    audit,
    clock,
    retentionDays: config.privacy.activityLogIpRetentionDays,
  });
  // src/server.ts starts it; connects to nothing before
  const ipPurgeSchedule = new IpPurgeSchedule({ retention: ipRetention, logger, connectionString: databaseUrl });

  const container = {
    config,
    instance,
    health,
    logger,
    clock,
    database,
    prisma,
    metrics,
    notifier,
    mailer,
    mailQueue,
    redis,
    tokens,
    passwordHasher,
    audit,
    registry,
    eventAccess,
    registration,
    login,
    emailVerification,
    passwordReset,
    profiles,
    account,
    operatorAccounts,
    chatFlood,
    roomJoinLimit,
    webrtc,
    transfers,
    chat,
    eventRoom,
    eventMessages,
    events,
    checkin,
    dashboard,
    referenceData,
    heats,
    eventSettings,
    matches,
    matchRequests,
    ratings,
    privateChat,
    matching,
    matchingReports,
    suggestions,
    avatars,
    accountDeletion,
    dataExport,
    ipRetention,
    ipPurgeSchedule,
    matchingSettings,
    matchingPeople,
    blocks,
    reports,
    moderation,
    // HTTP edge pieces built from the same configuration
    guards: createAuthGuards(tokens, config, readCache) as AuthGuards,
    readCache,
    cachedRead: createCachedRead(readCache),
    limiters,
    /** the read cache's answers served before the router (src/middleware/cached-read.ts) */
    hotLane: createHotLane({ cache: readCache, tokens, limiter: limiters.general }),
    /** GET /users/me/export: the e-mail tier, counted per user (docs/privacy.md) */
    exportLimiter: createUserRateLimiter('email', 'export', config, redis, logger),
    csrf: createCsrf(config) as Csrf,
    /** Releases what the container opened (pool, Redis, SMTP transport). */
    async close(): Promise<void> {
      notifier.unbind();
      await mailQueue.stop();
      await ipPurgeSchedule.stop();
      mailer.close();
      await redis.close();
      await readCache?.close();
      await database.close();
    },
  };
  return container;
}

export type Container = ReturnType<typeof createContainer>;

/** The entry points resolve the database (DATABASE_URL or the embedded server) before building a container. */
function requireDatabaseUrl(config: Config): string {
  if (!config.databaseUrl)
    throw new Error('createContainer needs config.databaseUrl: resolve the database first (src/lib/database.ts)');
  return config.databaseUrl;
}

-- Initial schema. Hand-written (Prisma's schema engine cannot run offline here);
-- names follow Prisma's conventions so `prisma migrate diff` against schema.prisma is empty
-- apart from the constraints Prisma cannot express (marked "SQL-only").

-- CreateTable
CREATE TABLE "User" (
    "id" SERIAL NOT NULL,
    "username" VARCHAR(50) NOT NULL,
    "email" VARCHAR(254) NOT NULL,
    "passwordHash" TEXT NOT NULL,
    "avatar" TEXT NOT NULL,
    "firstName" VARCHAR(100),
    "lastName" VARCHAR(100),
    "registryId" VARCHAR(20),
    "city" VARCHAR(100),
    "country" VARCHAR(100),
    "instagramUrl" VARCHAR(500),
    "facebookUrl" VARCHAR(500),
    "youtubeUrl" VARCHAR(500),
    "tiktokUrl" VARCHAR(500),
    "emailVerified" BOOLEAN NOT NULL DEFAULT false,
    "isAdmin" BOOLEAN NOT NULL DEFAULT false,
    "verificationTokenHash" TEXT,
    "verificationCodeHash" TEXT,
    "verificationExpiresAt" TIMESTAMPTZ(3),
    "verificationAttempts" INTEGER NOT NULL DEFAULT 0,
    "resetTokenHash" TEXT,
    "resetExpiresAt" TIMESTAMPTZ(3),
    "failedLoginAttempts" INTEGER NOT NULL DEFAULT 0,
    "lockedUntil" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "User_pkey" PRIMARY KEY ("id"),
    -- SQL-only
    CONSTRAINT "User_failedLoginAttempts_check" CHECK ("failedLoginAttempts" >= 0)
);

-- CreateTable
CREATE TABLE "Event" (
    "id" SERIAL NOT NULL,
    "slug" VARCHAR(50) NOT NULL,
    "name" VARCHAR(200) NOT NULL,
    "location" VARCHAR(200) NOT NULL,
    "startDate" TIMESTAMPTZ(3) NOT NULL,
    "endDate" TIMESTAMPTZ(3) NOT NULL,
    "worldRegistryId" VARCHAR(50),
    "participantsCount" INTEGER NOT NULL DEFAULT 0,
    "description" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "registrationDeadline" TIMESTAMPTZ(3),
    "matchingRunAt" TIMESTAMPTZ(3),
    "scheduleConfig" JSONB,

    CONSTRAINT "Event_pkey" PRIMARY KEY ("id"),
    -- SQL-only
    CONSTRAINT "Event_participantsCount_check" CHECK ("participantsCount" >= 0),
    CONSTRAINT "Event_dates_check" CHECK ("endDate" >= "startDate")
);

-- CreateTable
CREATE TABLE "ChatRoom" (
    "id" SERIAL NOT NULL,
    "eventId" INTEGER,
    "matchId" INTEGER,
    "type" VARCHAR(20) NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ChatRoom_pkey" PRIMARY KEY ("id"),
    -- SQL-only: an event room belongs to an event, a private room to a match
    CONSTRAINT "ChatRoom_owner_check" CHECK (
        ("type" = 'event' AND "eventId" IS NOT NULL AND "matchId" IS NULL)
        OR ("type" = 'private' AND "matchId" IS NOT NULL AND "eventId" IS NULL)
    )
);

-- CreateTable
CREATE TABLE "Message" (
    "id" SERIAL NOT NULL,
    "roomId" INTEGER NOT NULL,
    "userId" INTEGER NOT NULL,
    "content" TEXT NOT NULL,
    "type" VARCHAR(20) NOT NULL DEFAULT 'text',
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Message_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "EventParticipant" (
    "id" SERIAL NOT NULL,
    "userId" INTEGER NOT NULL,
    "eventId" INTEGER NOT NULL,
    "joinedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "competitorNumber" VARCHAR(10),
    "recorderOptOut" BOOLEAN NOT NULL DEFAULT false,

    CONSTRAINT "EventParticipant_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "EventCheckinToken" (
    "id" SERIAL NOT NULL,
    "eventId" INTEGER NOT NULL,
    "token" VARCHAR(64) NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "EventCheckinToken_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Division" (
    "id" SERIAL NOT NULL,
    "name" VARCHAR(50) NOT NULL,
    "abbreviation" VARCHAR(10) NOT NULL,

    CONSTRAINT "Division_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "CompetitionType" (
    "id" SERIAL NOT NULL,
    "name" VARCHAR(50) NOT NULL,
    "abbreviation" VARCHAR(10) NOT NULL,

    CONSTRAINT "CompetitionType_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Heat" (
    "id" SERIAL NOT NULL,
    "userId" INTEGER NOT NULL,
    "eventId" INTEGER NOT NULL,
    "divisionId" INTEGER NOT NULL,
    "competitionTypeId" INTEGER NOT NULL,
    "heatNumber" INTEGER NOT NULL,
    "role" VARCHAR(10),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Heat_pkey" PRIMARY KEY ("id"),
    -- SQL-only
    CONSTRAINT "Heat_heatNumber_check" CHECK ("heatNumber" BETWEEN 1 AND 9),
    CONSTRAINT "Heat_role_check" CHECK ("role" IS NULL OR "role" IN ('Leader', 'Follower'))
);

-- CreateTable
CREATE TABLE "Match" (
    "id" SERIAL NOT NULL,
    "slug" VARCHAR(50) NOT NULL,
    "eventId" INTEGER NOT NULL,
    "user1Id" INTEGER NOT NULL,
    "user2Id" INTEGER NOT NULL,
    "status" VARCHAR(20) NOT NULL DEFAULT 'pending',
    "source" VARCHAR(20) NOT NULL DEFAULT 'manual',
    "suggestionId" INTEGER,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "respondedAt" TIMESTAMPTZ(3),

    CONSTRAINT "Match_pkey" PRIMARY KEY ("id"),
    -- SQL-only
    CONSTRAINT "Match_distinct_users_check" CHECK ("user1Id" <> "user2Id"),
    CONSTRAINT "Match_status_check" CHECK ("status" IN ('pending', 'accepted', 'completed')),
    CONSTRAINT "Match_source_check" CHECK ("source" IN ('manual', 'auto'))
);

-- CreateTable
CREATE TABLE "Rating" (
    "id" SERIAL NOT NULL,
    "matchId" INTEGER,
    "raterId" INTEGER NOT NULL,
    "ratedId" INTEGER NOT NULL,
    "eventId" INTEGER NOT NULL,
    "score" INTEGER NOT NULL,
    "comment" VARCHAR(500),
    "wouldCollaborateAgain" BOOLEAN,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Rating_pkey" PRIMARY KEY ("id"),
    -- SQL-only
    CONSTRAINT "Rating_score_check" CHECK ("score" BETWEEN 1 AND 5),
    CONSTRAINT "Rating_not_self_check" CHECK ("raterId" <> "ratedId")
);

-- CreateTable
CREATE TABLE "RecordingSuggestion" (
    "id" SERIAL NOT NULL,
    "eventId" INTEGER NOT NULL,
    "heatId" INTEGER NOT NULL,
    "dancerId" INTEGER NOT NULL,
    "recorderId" INTEGER,
    "status" VARCHAR(20) NOT NULL DEFAULT 'pending',
    "originRunId" UUID NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "respondedAt" TIMESTAMPTZ(3),

    CONSTRAINT "RecordingSuggestion_pkey" PRIMARY KEY ("id"),
    -- SQL-only
    CONSTRAINT "RecordingSuggestion_status_check" CHECK ("status" IN ('pending', 'accepted', 'rejected', 'not_found')),
    CONSTRAINT "RecordingSuggestion_recorder_check" CHECK (("status" = 'not_found') = ("recorderId" IS NULL)),
    CONSTRAINT "RecordingSuggestion_not_self_check" CHECK ("recorderId" IS NULL OR "recorderId" <> "dancerId")
);

-- CreateTable
CREATE TABLE "MatchingRun" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "eventId" INTEGER NOT NULL,
    "trigger" VARCHAR(20) NOT NULL,
    "status" VARCHAR(20) NOT NULL DEFAULT 'running',
    "triggeredById" INTEGER,
    "startedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finishedAt" TIMESTAMPTZ(3),
    "heatsTotal" INTEGER NOT NULL DEFAULT 0,
    "heatsAssigned" INTEGER NOT NULL DEFAULT 0,
    "heatsUnassigned" INTEGER NOT NULL DEFAULT 0,
    "error" TEXT,

    CONSTRAINT "MatchingRun_pkey" PRIMARY KEY ("id"),
    -- SQL-only
    CONSTRAINT "MatchingRun_trigger_check" CHECK ("trigger" IN ('manual', 'scheduled')),
    CONSTRAINT "MatchingRun_status_check" CHECK ("status" IN ('running', 'success', 'failed'))
);

-- CreateTable
CREATE TABLE "ActivityLog" (
    "id" SERIAL NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "category" VARCHAR(20) NOT NULL,
    "action" VARCHAR(100) NOT NULL,
    "userId" INTEGER,
    "username" VARCHAR(50),
    "success" BOOLEAN NOT NULL DEFAULT true,
    "ip" VARCHAR(64),
    "method" VARCHAR(10),
    "path" VARCHAR(500),
    "resource" VARCHAR(200),
    "metadata" JSONB,

    CONSTRAINT "ActivityLog_pkey" PRIMARY KEY ("id"),
    -- SQL-only
    CONSTRAINT "ActivityLog_category_check" CHECK ("category" IN ('auth', 'event', 'match', 'admin', 'chat'))
);

-- CreateIndex
CREATE UNIQUE INDEX "User_username_key" ON "User"("username");
CREATE UNIQUE INDEX "User_email_key" ON "User"("email");
CREATE UNIQUE INDEX "User_verificationTokenHash_key" ON "User"("verificationTokenHash");
CREATE UNIQUE INDEX "User_resetTokenHash_key" ON "User"("resetTokenHash");
CREATE UNIQUE INDEX "Event_slug_key" ON "Event"("slug");
CREATE INDEX "Event_startDate_idx" ON "Event"("startDate");
CREATE INDEX "Event_registrationDeadline_idx" ON "Event"("registrationDeadline");
CREATE UNIQUE INDEX "ChatRoom_matchId_key" ON "ChatRoom"("matchId");
CREATE UNIQUE INDEX "ChatRoom_eventId_type_key" ON "ChatRoom"("eventId", "type");
CREATE INDEX "Message_roomId_id_idx" ON "Message"("roomId", "id");
CREATE INDEX "Message_userId_idx" ON "Message"("userId");
CREATE UNIQUE INDEX "EventParticipant_userId_eventId_key" ON "EventParticipant"("userId", "eventId");
CREATE INDEX "EventParticipant_eventId_joinedAt_idx" ON "EventParticipant"("eventId", "joinedAt");
CREATE UNIQUE INDEX "EventCheckinToken_eventId_key" ON "EventCheckinToken"("eventId");
CREATE UNIQUE INDEX "EventCheckinToken_token_key" ON "EventCheckinToken"("token");
CREATE UNIQUE INDEX "Division_name_key" ON "Division"("name");
CREATE UNIQUE INDEX "Division_abbreviation_key" ON "Division"("abbreviation");
CREATE UNIQUE INDEX "CompetitionType_name_key" ON "CompetitionType"("name");
CREATE UNIQUE INDEX "CompetitionType_abbreviation_key" ON "CompetitionType"("abbreviation");
-- NULLS NOT DISTINCT (SQL-only): two role-less heats in one division and type are duplicates
CREATE UNIQUE INDEX "Heat_userId_eventId_divisionId_competitionTypeId_role_key" ON "Heat"("userId", "eventId", "divisionId", "competitionTypeId", "role") NULLS NOT DISTINCT;
CREATE INDEX "Heat_eventId_userId_idx" ON "Heat"("eventId", "userId");
CREATE UNIQUE INDEX "Match_slug_key" ON "Match"("slug");
CREATE UNIQUE INDEX "Match_suggestionId_key" ON "Match"("suggestionId");
CREATE INDEX "Match_user1Id_status_idx" ON "Match"("user1Id", "status");
CREATE INDEX "Match_user2Id_status_idx" ON "Match"("user2Id", "status");
CREATE INDEX "Match_eventId_idx" ON "Match"("eventId");
-- SQL-only: one match per unordered pair of users and event, whoever asked first
CREATE UNIQUE INDEX "Match_eventId_pair_key" ON "Match"("eventId", LEAST("user1Id", "user2Id"), GREATEST("user1Id", "user2Id"));
CREATE UNIQUE INDEX "Rating_matchId_raterId_ratedId_key" ON "Rating"("matchId", "raterId", "ratedId");
CREATE INDEX "Rating_ratedId_createdAt_idx" ON "Rating"("ratedId", "createdAt");
CREATE INDEX "Rating_raterId_idx" ON "Rating"("raterId");
CREATE UNIQUE INDEX "RecordingSuggestion_heatId_recorderId_key" ON "RecordingSuggestion"("heatId", "recorderId");
CREATE INDEX "RecordingSuggestion_originRunId_status_idx" ON "RecordingSuggestion"("originRunId", "status");
CREATE INDEX "RecordingSuggestion_eventId_dancerId_idx" ON "RecordingSuggestion"("eventId", "dancerId");
CREATE INDEX "RecordingSuggestion_eventId_recorderId_idx" ON "RecordingSuggestion"("eventId", "recorderId");
CREATE INDEX "MatchingRun_eventId_startedAt_idx" ON "MatchingRun"("eventId", "startedAt");
CREATE INDEX "ActivityLog_createdAt_idx" ON "ActivityLog"("createdAt");
CREATE INDEX "ActivityLog_category_createdAt_idx" ON "ActivityLog"("category", "createdAt");
CREATE INDEX "ActivityLog_action_idx" ON "ActivityLog"("action");
CREATE INDEX "ActivityLog_username_idx" ON "ActivityLog"("username");

-- AddForeignKey
ALTER TABLE "ChatRoom" ADD CONSTRAINT "ChatRoom_eventId_fkey" FOREIGN KEY ("eventId") REFERENCES "Event"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "ChatRoom" ADD CONSTRAINT "ChatRoom_matchId_fkey" FOREIGN KEY ("matchId") REFERENCES "Match"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "Message" ADD CONSTRAINT "Message_roomId_fkey" FOREIGN KEY ("roomId") REFERENCES "ChatRoom"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "Message" ADD CONSTRAINT "Message_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "EventParticipant" ADD CONSTRAINT "EventParticipant_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "EventParticipant" ADD CONSTRAINT "EventParticipant_eventId_fkey" FOREIGN KEY ("eventId") REFERENCES "Event"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "EventCheckinToken" ADD CONSTRAINT "EventCheckinToken_eventId_fkey" FOREIGN KEY ("eventId") REFERENCES "Event"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "Heat" ADD CONSTRAINT "Heat_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "Heat" ADD CONSTRAINT "Heat_eventId_fkey" FOREIGN KEY ("eventId") REFERENCES "Event"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "Heat" ADD CONSTRAINT "Heat_userId_eventId_fkey" FOREIGN KEY ("userId", "eventId") REFERENCES "EventParticipant"("userId", "eventId") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "Heat" ADD CONSTRAINT "Heat_divisionId_fkey" FOREIGN KEY ("divisionId") REFERENCES "Division"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "Heat" ADD CONSTRAINT "Heat_competitionTypeId_fkey" FOREIGN KEY ("competitionTypeId") REFERENCES "CompetitionType"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "Match" ADD CONSTRAINT "Match_eventId_fkey" FOREIGN KEY ("eventId") REFERENCES "Event"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "Match" ADD CONSTRAINT "Match_user1Id_fkey" FOREIGN KEY ("user1Id") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "Match" ADD CONSTRAINT "Match_user2Id_fkey" FOREIGN KEY ("user2Id") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "Match" ADD CONSTRAINT "Match_suggestionId_fkey" FOREIGN KEY ("suggestionId") REFERENCES "RecordingSuggestion"("id") ON DELETE SET NULL ON UPDATE CASCADE;
ALTER TABLE "Rating" ADD CONSTRAINT "Rating_matchId_fkey" FOREIGN KEY ("matchId") REFERENCES "Match"("id") ON DELETE SET NULL ON UPDATE CASCADE;
ALTER TABLE "Rating" ADD CONSTRAINT "Rating_raterId_fkey" FOREIGN KEY ("raterId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "Rating" ADD CONSTRAINT "Rating_ratedId_fkey" FOREIGN KEY ("ratedId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "Rating" ADD CONSTRAINT "Rating_eventId_fkey" FOREIGN KEY ("eventId") REFERENCES "Event"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "RecordingSuggestion" ADD CONSTRAINT "RecordingSuggestion_eventId_fkey" FOREIGN KEY ("eventId") REFERENCES "Event"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "RecordingSuggestion" ADD CONSTRAINT "RecordingSuggestion_heatId_fkey" FOREIGN KEY ("heatId") REFERENCES "Heat"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "RecordingSuggestion" ADD CONSTRAINT "RecordingSuggestion_dancerId_fkey" FOREIGN KEY ("dancerId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "RecordingSuggestion" ADD CONSTRAINT "RecordingSuggestion_recorderId_fkey" FOREIGN KEY ("recorderId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "RecordingSuggestion" ADD CONSTRAINT "RecordingSuggestion_originRunId_fkey" FOREIGN KEY ("originRunId") REFERENCES "MatchingRun"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "MatchingRun" ADD CONSTRAINT "MatchingRun_eventId_fkey" FOREIGN KEY ("eventId") REFERENCES "Event"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "MatchingRun" ADD CONSTRAINT "MatchingRun_triggeredById_fkey" FOREIGN KEY ("triggeredById") REFERENCES "User"("id") ON DELETE SET NULL ON UPDATE CASCADE;
ALTER TABLE "ActivityLog" ADD CONSTRAINT "ActivityLog_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE SET NULL ON UPDATE CASCADE;

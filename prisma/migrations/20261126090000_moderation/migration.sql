-- Moderation (see docs/moderation.md): soft-deleted messages, the duplicate filter's index, and
-- reports. Blocks (UserBlock) and the suspension columns of "User" come from 20261126060000_shared_seams.
--
-- Every user reference of a report is nullable with ON DELETE SET NULL, so a deleted account
-- needs no special handling: it is shown as the deleted-user placeholder. A message report
-- keeps a snapshot of the message (content, author, room), a match report the match's slug,
-- event and both users, so the report stays readable after the message or match is gone.

ALTER TABLE "Message" ADD COLUMN "deletedAt" TIMESTAMPTZ(3);

-- duplicate filter: the same user's messages in a room during the last 30 s
CREATE INDEX "Message_userId_roomId_createdAt_idx" ON "Message"("userId", "roomId", "createdAt");

CREATE TABLE "Report" (
  "id" SERIAL NOT NULL,
  "reporterId" INTEGER,
  "targetType" VARCHAR(20) NOT NULL,
  -- the target as the API shows it: a username, a message id, a match slug
  "targetId" VARCHAR(100) NOT NULL,
  -- the target's identity for the one-open-report rule: "<type>:<database id>"
  "targetKey" VARCHAR(100) NOT NULL,
  "reason" VARCHAR(20) NOT NULL,
  "details" VARCHAR(1000) NOT NULL DEFAULT '',
  "status" VARCHAR(20) NOT NULL DEFAULT 'open',
  "note" VARCHAR(1000),
  "resolvedAt" TIMESTAMPTZ(3),
  "resolvedById" INTEGER,
  "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  "targetUserId" INTEGER,
  "messageId" INTEGER,
  "messageContent" TEXT,
  "messageCreatedAt" TIMESTAMPTZ(3),
  "messageAuthorId" INTEGER,
  "messageRoomId" INTEGER,
  "messageRoomType" VARCHAR(20),
  "matchId" INTEGER,
  "matchSlug" VARCHAR(50),
  "matchUser1Id" INTEGER,
  "matchUser2Id" INTEGER,
  -- the event of a message's room or of a match
  "eventSlug" VARCHAR(50),
  "eventName" VARCHAR(200),
  CONSTRAINT "Report_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "Report_targetType_check" CHECK ("targetType" IN ('user', 'message', 'match')),
  CONSTRAINT "Report_reason_check" CHECK ("reason" IN ('harassment', 'spam', 'inappropriate', 'safety', 'other')),
  CONSTRAINT "Report_status_check" CHECK ("status" IN ('open', 'resolved', 'dismissed'))
);

CREATE INDEX "Report_status_createdAt_idx" ON "Report"("status", "createdAt");
CREATE INDEX "Report_createdAt_idx" ON "Report"("createdAt");
-- one open report per reporter and target (a closed one does not count)
CREATE UNIQUE INDEX "Report_open_reporter_target_key" ON "Report"("reporterId", "targetKey") WHERE "status" = 'open';

ALTER TABLE "Report" ADD CONSTRAINT "Report_reporterId_fkey" FOREIGN KEY ("reporterId") REFERENCES "User"("id") ON DELETE SET NULL ON UPDATE CASCADE;
ALTER TABLE "Report" ADD CONSTRAINT "Report_resolvedById_fkey" FOREIGN KEY ("resolvedById") REFERENCES "User"("id") ON DELETE SET NULL ON UPDATE CASCADE;
ALTER TABLE "Report" ADD CONSTRAINT "Report_targetUserId_fkey" FOREIGN KEY ("targetUserId") REFERENCES "User"("id") ON DELETE SET NULL ON UPDATE CASCADE;
ALTER TABLE "Report" ADD CONSTRAINT "Report_messageAuthorId_fkey" FOREIGN KEY ("messageAuthorId") REFERENCES "User"("id") ON DELETE SET NULL ON UPDATE CASCADE;
ALTER TABLE "Report" ADD CONSTRAINT "Report_matchUser1Id_fkey" FOREIGN KEY ("matchUser1Id") REFERENCES "User"("id") ON DELETE SET NULL ON UPDATE CASCADE;
ALTER TABLE "Report" ADD CONSTRAINT "Report_matchUser2Id_fkey" FOREIGN KEY ("matchUser2Id") REFERENCES "User"("id") ON DELETE SET NULL ON UPDATE CASCADE;
ALTER TABLE "Report" ADD CONSTRAINT "Report_messageId_fkey" FOREIGN KEY ("messageId") REFERENCES "Message"("id") ON DELETE SET NULL ON UPDATE CASCADE;
ALTER TABLE "Report" ADD CONSTRAINT "Report_matchId_fkey" FOREIGN KEY ("matchId") REFERENCES "Match"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- Columns and tables that several features read, created once so that each feature's own
-- migration builds on them (see prisma/schema.prisma for their owners):
-- * suspension of a user (owned by the moderation feature; matching leaves suspended users out);
-- * blocks between users (owned by the moderation feature; matching never pairs a blocked pair);
-- * pinned suggestions and their explanation (owned by matching; account deletion clears them).

ALTER TABLE "User"
  ADD COLUMN "suspendedAt" TIMESTAMPTZ(3),
  ADD COLUMN "suspendedUntil" TIMESTAMPTZ(3),
  ADD COLUMN "suspensionReason" VARCHAR(500),
  ADD COLUMN "suspendedById" INTEGER;

ALTER TABLE "User"
  ADD CONSTRAINT "User_suspendedById_fkey" FOREIGN KEY ("suspendedById") REFERENCES "User"("id")
  ON DELETE SET NULL ON UPDATE CASCADE;

CREATE TABLE "UserBlock" (
  "id" SERIAL NOT NULL,
  "blockerId" INTEGER NOT NULL,
  "blockedId" INTEGER NOT NULL,
  "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT "UserBlock_pkey" PRIMARY KEY ("id"),
  CONSTRAINT "UserBlock_not_self" CHECK ("blockerId" <> "blockedId")
);

CREATE UNIQUE INDEX "UserBlock_blockerId_blockedId_key" ON "UserBlock"("blockerId", "blockedId");
CREATE INDEX "UserBlock_blockedId_idx" ON "UserBlock"("blockedId");

ALTER TABLE "UserBlock"
  ADD CONSTRAINT "UserBlock_blockerId_fkey" FOREIGN KEY ("blockerId") REFERENCES "User"("id")
  ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "UserBlock"
  ADD CONSTRAINT "UserBlock_blockedId_fkey" FOREIGN KEY ("blockedId") REFERENCES "User"("id")
  ON DELETE CASCADE ON UPDATE CASCADE;

ALTER TABLE "RecordingSuggestion"
  ADD COLUMN "pinned" BOOLEAN NOT NULL DEFAULT false,
  ADD COLUMN "why" JSONB;

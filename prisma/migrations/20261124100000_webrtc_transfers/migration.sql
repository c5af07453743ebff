-- Video hand-off records (browser-to-browser transfers between the two members of a match).
-- Hand-written like the initial migration; names follow Prisma's conventions.

-- CreateTable
CREATE TABLE "VideoTransfer" (
    "id" SERIAL NOT NULL,
    "matchId" INTEGER NOT NULL,
    "senderId" INTEGER NOT NULL,
    "receiverId" INTEGER NOT NULL,
    "fileName" VARCHAR(255) NOT NULL,
    "size" BIGINT NOT NULL,
    "sha256" CHAR(64) NOT NULL,
    "status" VARCHAR(20) NOT NULL DEFAULT 'offered',
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finishedAt" TIMESTAMPTZ(3),

    CONSTRAINT "VideoTransfer_pkey" PRIMARY KEY ("id"),
    -- SQL-only
    CONSTRAINT "VideoTransfer_status_check" CHECK ("status" IN ('offered', 'completed', 'failed', 'cancelled')),
    CONSTRAINT "VideoTransfer_size_check" CHECK ("size" > 0),
    CONSTRAINT "VideoTransfer_sha256_check" CHECK ("sha256" ~ '^[0-9a-f]{64}$'),
    CONSTRAINT "VideoTransfer_distinct_users_check" CHECK ("senderId" <> "receiverId")
);

-- CreateIndex
CREATE INDEX "VideoTransfer_matchId_createdAt_idx" ON "VideoTransfer"("matchId", "createdAt");
CREATE INDEX "VideoTransfer_receiverId_status_idx" ON "VideoTransfer"("receiverId", "status");
CREATE INDEX "VideoTransfer_senderId_idx" ON "VideoTransfer"("senderId");

-- AddForeignKey
ALTER TABLE "VideoTransfer" ADD CONSTRAINT "VideoTransfer_matchId_fkey" FOREIGN KEY ("matchId") REFERENCES "Match"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "VideoTransfer" ADD CONSTRAINT "VideoTransfer_senderId_fkey" FOREIGN KEY ("senderId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "VideoTransfer" ADD CONSTRAINT "VideoTransfer_receiverId_fkey" FOREIGN KEY ("receiverId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

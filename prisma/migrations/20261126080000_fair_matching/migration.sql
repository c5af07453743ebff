-- Fair matching for people (src/modules/matching; docs/fair-matching.md).

-- Per-event matching settings; no row = the defaults (today's rules).
CREATE TABLE "EventMatchingSettings" (
  "eventId" INTEGER NOT NULL,
  "bufferBefore" INTEGER NOT NULL DEFAULT 0,
  "bufferAfter" INTEGER NOT NULL DEFAULT 1,
  "maxRecordingsPerPerson" INTEGER NOT NULL DEFAULT 3,
  "optOutMode" VARCHAR(10) NOT NULL DEFAULT 'last',
  "updatedAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT "EventMatchingSettings_pkey" PRIMARY KEY ("eventId"),
  CONSTRAINT "EventMatchingSettings_buffers_check" CHECK ("bufferBefore" BETWEEN 0 AND 2 AND "bufferAfter" BETWEEN 0 AND 2),
  CONSTRAINT "EventMatchingSettings_max_check" CHECK ("maxRecordingsPerPerson" BETWEEN 1 AND 5),
  CONSTRAINT "EventMatchingSettings_optOutMode_check" CHECK ("optOutMode" IN ('last', 'exclude'))
);
ALTER TABLE "EventMatchingSettings"
  ADD CONSTRAINT "EventMatchingSettings_eventId_fkey" FOREIGN KEY ("eventId") REFERENCES "Event"("id")
  ON DELETE CASCADE ON UPDATE CASCADE;

-- A participant's recording preferences and the no-show mark (they belong to the participation:
-- leaving the event drops them).
ALTER TABLE "EventParticipant"
  ADD COLUMN "maxRecordings" INTEGER,
  ADD COLUMN "unavailable" JSONB NOT NULL DEFAULT '[]',
  ADD COLUMN "absentAt" TIMESTAMPTZ(3),
  ADD CONSTRAINT "EventParticipant_maxRecordings_check" CHECK ("maxRecordings" IS NULL OR "maxRecordings" BETWEEN 0 AND 5);

-- Pins have no origin run; two new history statuses; a new unfilled reason.
ALTER TABLE "RecordingSuggestion" ALTER COLUMN "originRunId" DROP NOT NULL;
ALTER TABLE "RecordingSuggestion" DROP CONSTRAINT "RecordingSuggestion_status_check";
ALTER TABLE "RecordingSuggestion" ADD CONSTRAINT "RecordingSuggestion_status_check"
  CHECK ("status" IN ('pending', 'accepted', 'rejected', 'not_found', 'removed', 'cancelled'));
ALTER TABLE "RecordingSuggestion" DROP CONSTRAINT "RecordingSuggestion_unfilledReason_check";
ALTER TABLE "RecordingSuggestion" ADD CONSTRAINT "RecordingSuggestion_unfilledReason_check" CHECK (
    "unfilledReason" IS NULL OR (
        "status" = 'not_found' AND "unfilledReason" IN (
            'NO_OTHER_PARTICIPANT', 'ALL_CANDIDATES_DANCING', 'SLOT_CONFLICT', 'ALL_CANDIDATES_UNAVAILABLE',
            'ALL_CANDIDATES_REJECTED', 'ONLY_OPTED_OUT_AT_CAP', 'ALL_CANDIDATES_AT_CAP'
        )
    )
);
ALTER TABLE "RecordingSuggestion" ADD CONSTRAINT "RecordingSuggestion_pinned_check" CHECK (NOT "pinned" OR "status" <> 'not_found');

-- Recording balance per user over all events (stats, and every run's balances).
CREATE INDEX "RecordingSuggestion_recorderId_status_idx" ON "RecordingSuggestion"("recorderId", "status");
CREATE INDEX "RecordingSuggestion_dancerId_status_idx" ON "RecordingSuggestion"("dancerId", "status");

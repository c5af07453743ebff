-- Privacy and data rights: an account can be deleted while what other people need stays,
-- anonymised (docs/privacy.md).
-- * Event-room messages of a deleted user stay with "userId" null (shown as the placeholder
--   "deleted-user", content "[deleted]").
-- * Ratings a deleted user gave stay with "raterId" null and still count in the rated user's
--   average (comment cleared by the deletion).
-- * A deleted recorder's pending/accepted suggestions become not_found with the reason
--   RECORDER_DELETED (the deletion writes them; the foreign key keeps its cascade for the rest).

ALTER TABLE "Message" ALTER COLUMN "userId" DROP NOT NULL;
ALTER TABLE "Message" DROP CONSTRAINT "Message_userId_fkey";
ALTER TABLE "Message" ADD CONSTRAINT "Message_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id")
  ON DELETE SET NULL ON UPDATE CASCADE;

ALTER TABLE "Rating" ALTER COLUMN "raterId" DROP NOT NULL;
ALTER TABLE "Rating" DROP CONSTRAINT "Rating_raterId_fkey";
ALTER TABLE "Rating" ADD CONSTRAINT "Rating_raterId_fkey" FOREIGN KEY ("raterId") REFERENCES "User"("id")
  ON DELETE SET NULL ON UPDATE CASCADE;

ALTER TABLE "RecordingSuggestion" DROP CONSTRAINT "RecordingSuggestion_unfilledReason_check";
ALTER TABLE "RecordingSuggestion" ADD CONSTRAINT "RecordingSuggestion_unfilledReason_check" CHECK (
    "unfilledReason" IS NULL OR (
        "status" = 'not_found' AND "unfilledReason" IN (
            'NO_OTHER_PARTICIPANT', 'ALL_CANDIDATES_DANCING', 'SLOT_CONFLICT', 'ALL_CANDIDATES_UNAVAILABLE',
            'ALL_CANDIDATES_REJECTED', 'ONLY_OPTED_OUT_AT_CAP', 'ALL_CANDIDATES_AT_CAP',
            'RECORDER_DELETED'
        )
    )
);

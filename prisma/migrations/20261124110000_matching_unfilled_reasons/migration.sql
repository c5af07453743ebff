-- Matching runs explain their gaps and report what a re-run kept (issue 15).
-- RecordingSuggestion."unfilledReason": why a not_found heat has no recorder (codes of
-- src/modules/matching/matching.unfilled.ts); null on every other row and on not_found rows
-- written before this migration.
ALTER TABLE "RecordingSuggestion" ADD COLUMN "unfilledReason" VARCHAR(40);
ALTER TABLE "RecordingSuggestion" ADD CONSTRAINT "RecordingSuggestion_unfilledReason_check" CHECK (
    "unfilledReason" IS NULL OR (
        "status" = 'not_found' AND "unfilledReason" IN (
            'NO_OTHER_PARTICIPANT', 'ALL_CANDIDATES_DANCING', 'SLOT_CONFLICT',
            'ALL_CANDIDATES_REJECTED', 'ONLY_OPTED_OUT_AT_CAP', 'ALL_CANDIDATES_AT_CAP'
        )
    )
);

-- MatchingRun."unfilled": [{ heatId, reason }] of the heats the run left without a recorder
-- (kept with the run, so older runs still explain their gaps after a re-run replaced their rows).
-- MatchingRun."reuse": { previous, kept, added, dropped, invalid } = what became of the pending
-- suggestions the run started from. Both null for runs before this migration and failed runs.
ALTER TABLE "MatchingRun" ADD COLUMN "unfilled" JSONB;
ALTER TABLE "MatchingRun" ADD COLUMN "reuse" JSONB;

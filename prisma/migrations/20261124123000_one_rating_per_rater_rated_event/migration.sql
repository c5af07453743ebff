-- One rating per rater, rated user and event, across matches (issue 13: a recorder could accept
-- a suggestion, rate, delete the match and repeat). The new unique index replaces the one on
-- (matchId, raterId, ratedId), which it implies (a match belongs to one event).
-- Ratings written before this migration may break the rule: the oldest rating of each
-- (rater, rated, event) stays, the later ones go.
DELETE FROM "Rating" r
USING "Rating" older
WHERE older."raterId" = r."raterId"
  AND older."ratedId" = r."ratedId"
  AND older."eventId" = r."eventId"
  AND older."id" < r."id";

DROP INDEX "Rating_matchId_raterId_ratedId_key";
CREATE UNIQUE INDEX "Rating_raterId_ratedId_eventId_key" ON "Rating"("raterId", "ratedId", "eventId");

-- Sessions that can be revoked: every token carries the user's token version (claim "tv");
-- a password change or reset increments it, so every earlier token is refused.
ALTER TABLE "User" ADD COLUMN "tokenVersion" INTEGER NOT NULL DEFAULT 0;

-- Usernames are unique regardless of case; the spelling given at registration is kept for
-- display. Prisma cannot express an expression index (tests/foundation/schema-drift.test.ts
-- lists it as SQL-only). Fails if two existing usernames differ only in case: rename one first.
CREATE UNIQUE INDEX "User_username_lower_key" ON "User" (lower("username"));

-- Security hardening: the e-mail changes of an account, counted for the per-account cap
-- (owned by the users feature; docs/security-hardening.md).

CREATE TABLE "EmailChange" (
  "id" SERIAL NOT NULL,
  "userId" INTEGER NOT NULL,
  "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
  CONSTRAINT "EmailChange_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "EmailChange_userId_createdAt_idx" ON "EmailChange"("userId", "createdAt");

ALTER TABLE "EmailChange"
  ADD CONSTRAINT "EmailChange_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id")
  ON DELETE CASCADE ON UPDATE CASCADE;

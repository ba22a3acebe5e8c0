-- "My API Keys" (docs/contract.md §1): account holders sign in with a
-- one-time link or OpenID Connect, and manage the keys they own.
-- Links and sessions are stored only as SHA-256 hashes of their secrets.

CREATE TABLE "sign_in_token" (
    "hash" TEXT NOT NULL,
    "owner" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "used_at" TIMESTAMPTZ(3),
    CONSTRAINT "sign_in_token_pkey" PRIMARY KEY ("hash")
);

CREATE TABLE "account_session" (
    "hash" TEXT NOT NULL,
    "account" TEXT NOT NULL,
    "display_name" TEXT NOT NULL,
    "method" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "ended_at" TIMESTAMPTZ(3),
    CONSTRAINT "account_session_pkey" PRIMARY KEY ("hash")
);

-- The secret that seals session cookies when SESSION_SECRET is unset: made
-- once, shared by every process of the database.
CREATE TABLE "session_secret" (
    "id" INTEGER NOT NULL DEFAULT 1,
    "value" TEXT NOT NULL,
    CONSTRAINT "session_secret_pkey" PRIMARY KEY ("id")
);

-- An account's keys are listed and counted by owner.
CREATE INDEX "api_key_owner_idx" ON "api_key"("owner");

-- A key's restrictions (issue 67, docs/api-keys.md "A key in a web page"). NULL
-- (or false) leaves a side open, so existing keys keep working unrestricted.
--
-- - allowed_origins: page origins (`https://app.example.org`, `https://*.example.org`);
-- - allowed_addresses: CIDR ranges of the clients (`203.0.113.0/24`);
-- - allowed_surfaces: some of `rest`, `graphql`, `mcp`;
-- - documents_only: on GraphQL, only trusted documents: the key's own set
--   (api_key_document) when it has one, else TRUSTED_DOCUMENTS;
-- - visitor_per_minute, visitor_per_day: requests one client address may make
--   with the key, beside the key's own limits.
ALTER TABLE "api_key" ADD COLUMN "allowed_origins" TEXT[];
ALTER TABLE "api_key" ADD COLUMN "allowed_addresses" TEXT[];
ALTER TABLE "api_key" ADD COLUMN "allowed_surfaces" TEXT[];
ALTER TABLE "api_key" ADD COLUMN "documents_only" BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE "api_key" ADD COLUMN "visitor_per_minute" INTEGER;
ALTER TABLE "api_key" ADD COLUMN "visitor_per_day" INTEGER;
ALTER TABLE "api_key" ADD CONSTRAINT "api_key_visitor_per_minute_check" CHECK ("visitor_per_minute" IS NULL OR "visitor_per_minute" > 0);
ALTER TABLE "api_key" ADD CONSTRAINT "api_key_visitor_per_day_check" CHECK ("visitor_per_day" IS NULL OR "visitor_per_day" > 0);

-- The trusted GraphQL documents attached to one key, by their SHA-256.
CREATE TABLE "api_key_document" (
    "key_id" INTEGER NOT NULL,
    "hash" TEXT NOT NULL,
    "document" TEXT NOT NULL,
    CONSTRAINT "api_key_document_pkey" PRIMARY KEY ("key_id", "hash"),
    CONSTRAINT "api_key_document_key_id_fkey" FOREIGN KEY ("key_id") REFERENCES "api_key"("id") ON DELETE CASCADE ON UPDATE CASCADE
);

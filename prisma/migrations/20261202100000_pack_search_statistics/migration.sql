-- A Pack search (`q`, operation 10) is an ILIKE of the term on a Pack's name,
-- summary and subject, with their trigram indexes. PostgreSQL estimates such
-- a pattern by trying it on each column's most common values and histogram:
-- with full statistics, each request's plan was made again for its term
-- (0.2-0.6 ms a request, more than running it) because the estimate for the
-- term beat the generic plan's. With one entry each, a term's plan costs
-- what the generic plan costs, and the statement keeps its generic plan,
-- made once a connection (issue 68, item 3: 3,000 Packs searched at 0.12 of
-- 40). Nothing filters or sorts on these columns but the search.
ALTER TABLE "hub_pack"
    ALTER COLUMN "name" SET STATISTICS 1,
    ALTER COLUMN "summary" SET STATISTICS 1,
    ALTER COLUMN "subject" SET STATISTICS 1;
ANALYZE "hub_pack";

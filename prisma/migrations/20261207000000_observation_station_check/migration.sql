-- An observation's station, checked once per statement instead of once per
-- row. The foreign key checked each row it wrote with a query of its own:
-- 8.6 µs a row on PostgreSQL 15 and 5.9 on 18, most of the writing of an
-- import. On PostgreSQL 15 the demo's 96,569 observations went into an empty
-- table, as the import writes them, in 667-927 ms against 1,188-1,624 with
-- the key; at bench:environment --days 30 (935,280), in 6.7 s against 12.2.
--
-- What the key held still holds, for the rows of each INSERT as a whole:
-- * a written observation names a station that exists, or the statement
--   fails with foreign_key_violation (23503), the key's own code and message;
-- * the stations it names are locked FOR KEY SHARE until the transaction
--   ends, as the key's check locks them: a station being removed, or given
--   another id, by another transaction is waited for, and then found gone;
-- * removing a station (DELETE, TRUNCATE) removes its observations, and
--   changing its id carries them along (ON DELETE/UPDATE CASCADE).
-- Like the key's, these triggers rest during db:restore
-- (session_replication_role = replica), which refills every table whole.

ALTER TABLE "observation" DROP CONSTRAINT "observation_station_id_fkey";

-- The key's own error, code and words, for an observation of `station`, which does not exist.
CREATE FUNCTION "observation_station_missing"(station TEXT) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'insert or update on table "observation" violates foreign key constraint "observation_station_id_fkey"'
        USING ERRCODE = 'foreign_key_violation',
              DETAIL = format('Key (station_id)=(%s) is not present in table "station".', station),
              TABLE = 'observation',
              CONSTRAINT = 'observation_station_id_fkey';
END $$;

CREATE FUNCTION "observation_station_check"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    missing TEXT;
BEGIN
    PERFORM 1 FROM "station" s WHERE s."id" IN (SELECT DISTINCT "station_id" FROM written) FOR KEY SHARE OF s;
    -- A new snapshot (READ COMMITTED): a station removed by a transaction the lock waited for is gone.
    SELECT w."station_id" INTO missing FROM written w
     WHERE NOT EXISTS (SELECT 1 FROM "station" s WHERE s."id" = w."station_id") LIMIT 1;
    IF FOUND THEN
        PERFORM "observation_station_missing"(missing);
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER "observation_station_inserted" AFTER INSERT ON "observation"
    REFERENCING NEW TABLE AS written FOR EACH STATEMENT EXECUTE FUNCTION "observation_station_check"();

-- An update that moves an observation to another station, checked row by row
-- as the key checked it: rare, and an update that leaves the station as it
-- is (a re-import's, an ingest's) is not checked at all, as the key did not.
CREATE FUNCTION "observation_station_moved"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM 1 FROM "station" s WHERE s."id" = NEW."station_id" FOR KEY SHARE OF s;
    IF NOT FOUND THEN
        PERFORM "observation_station_missing"(NEW."station_id");
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER "observation_station_changed" AFTER UPDATE OF "station_id" ON "observation"
    FOR EACH ROW WHEN (OLD."station_id" IS DISTINCT FROM NEW."station_id") EXECUTE FUNCTION "observation_station_moved"();

CREATE FUNCTION "station_observations_removed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'TRUNCATE' THEN
        DELETE FROM "observation";
    ELSE
        DELETE FROM "observation" o USING removed r WHERE o."station_id" = r."id";
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER "station_observations_deleted" AFTER DELETE ON "station"
    REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION "station_observations_removed"();
CREATE TRIGGER "station_observations_truncated" AFTER TRUNCATE ON "station"
    FOR EACH STATEMENT EXECUTE FUNCTION "station_observations_removed"();

CREATE FUNCTION "station_observations_moved"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE "observation" SET "station_id" = NEW."id" WHERE "station_id" = OLD."id";
    RETURN NULL;
END $$;

CREATE TRIGGER "station_observations_renamed" AFTER UPDATE OF "id" ON "station"
    FOR EACH ROW WHEN (OLD."id" IS DISTINCT FROM NEW."id") EXECUTE FUNCTION "station_observations_moved"();

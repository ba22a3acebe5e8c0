-- Initial schema: the public data model of prisma/schema.prisma.

CREATE TYPE "Country" AS ENUM ('TW', 'US');
CREATE TYPE "ConferenceRelationship" AS ENUM ('participated', 'watching');
CREATE TYPE "AssetType" AS ENUM ('skill', 'channel_template', 'quiz_bank', 'survey_bank', 'ai_task');
CREATE TYPE "EducationLevel" AS ENUM ('university', 'high_school', 'junior_high', 'elementary', 'general');
CREATE TYPE "PackVisibility" AS ENUM ('public', 'private', 'link');
CREATE TYPE "SafetyStatus" AS ENUM ('passed', 'pending', 'rejected');
CREATE TYPE "StationKind" AS ENUM ('weather', 'air');
CREATE TYPE "StationSource" AS ENUM ('cwa', 'moenv', 'nws', 'airnow');

CREATE TABLE "university" (
    "id" INTEGER NOT NULL,
    "code" TEXT NOT NULL,
    "code_key" TEXT NOT NULL,
    "name_zh" TEXT NOT NULL,
    "name_en" TEXT,
    "short_name" TEXT,
    "region" TEXT,
    "country" "Country" NOT NULL,
    "timezone" TEXT NOT NULL,
    "latitude" DOUBLE PRECISION NOT NULL,
    "longitude" DOUBLE PRECISION NOT NULL,
    CONSTRAINT "university_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "university_code_key_key" ON "university"("code_key");
CREATE INDEX "university_region_id_idx" ON "university"("region", "id");
CREATE INDEX "university_name_zh_idx" ON "university"("name_zh");

CREATE TABLE "course" (
    "id" INTEGER NOT NULL,
    "university_id" INTEGER NOT NULL,
    "class_name" TEXT,
    "course_number" TEXT,
    "course_class" TEXT,
    "course_name_chinese" TEXT,
    "course_name_english" TEXT,
    "instructor" TEXT,
    "instructor_english" TEXT,
    "department" TEXT,
    "department_english" TEXT,
    "semester" TEXT NOT NULL,
    "start_date" DATE,
    "end_date" DATE,
    "teaching_goal" TEXT,
    "teaching_goal_english" TEXT,
    "teaching_content" TEXT,
    "teaching_content_english" TEXT,
    "class_memo" TEXT,
    "is_public" BOOLEAN NOT NULL,
    "join_code" TEXT,
    CONSTRAINT "course_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "course_university_id_fkey" FOREIGN KEY ("university_id") REFERENCES "university"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "course_is_public_semester_id_idx" ON "course"("is_public", "semester" DESC, "id");
CREATE INDEX "course_university_id_is_public_semester_id_idx" ON "course"("university_id", "is_public", "semester" DESC, "id");
CREATE INDEX "course_is_public_university_id_instructor_idx" ON "course"("is_public", "university_id", "instructor");

CREATE TABLE "paper" (
    "slug" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "title_zh" TEXT,
    "authors" TEXT[],
    "conference" TEXT,
    "year" INTEGER NOT NULL,
    "doi" TEXT,
    "category" TEXT,
    "platform_feature" TEXT,
    "award" TEXT,
    CONSTRAINT "paper_pkey" PRIMARY KEY ("slug")
);
CREATE INDEX "paper_year_slug_idx" ON "paper"("year" DESC, "slug");
CREATE INDEX "paper_category_year_slug_idx" ON "paper"("category", "year" DESC, "slug");
CREATE INDEX "paper_conference_idx" ON "paper"("conference");

CREATE TABLE "conference" (
    "slug" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "name_short" TEXT,
    "year" INTEGER NOT NULL,
    "dates" TEXT,
    "location" TEXT,
    "website" TEXT,
    "organizer" TEXT,
    "indexing" TEXT,
    "relationship" "ConferenceRelationship" NOT NULL,
    CONSTRAINT "conference_pkey" PRIMARY KEY ("slug")
);
CREATE INDEX "conference_year_slug_idx" ON "conference"("year" DESC, "slug");

CREATE TABLE "hub_pack" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "summary" TEXT,
    "readme_md" TEXT,
    "asset_type" "AssetType" NOT NULL,
    "subject" TEXT,
    "education_level" "EducationLevel",
    "bloom_levels" TEXT[],
    "difficulty" TEXT,
    "star_count" INTEGER NOT NULL DEFAULT 0,
    "install_count" INTEGER NOT NULL DEFAULT 0,
    "owner_name" TEXT,
    "visibility" "PackVisibility" NOT NULL,
    "safety_status" "SafetyStatus" NOT NULL,
    "latest_version" TEXT,
    "latest_published_at" TIMESTAMPTZ(3),
    "payload" JSONB,
    CONSTRAINT "hub_pack_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "hub_pack_visibility_safety_status_latest_published_at_id_idx" ON "hub_pack"("visibility", "safety_status", "latest_published_at" DESC, "id");
CREATE INDEX "hub_pack_visibility_safety_status_star_count_id_idx" ON "hub_pack"("visibility", "safety_status", "star_count" DESC, "id");
CREATE INDEX "hub_pack_visibility_safety_status_install_count_id_idx" ON "hub_pack"("visibility", "safety_status", "install_count" DESC, "id");
CREATE INDEX "hub_pack_asset_type_idx" ON "hub_pack"("asset_type");
CREATE INDEX "hub_pack_education_level_idx" ON "hub_pack"("education_level");

CREATE TABLE "hub_pack_version" (
    "pack_id" TEXT NOT NULL,
    "version" TEXT NOT NULL,
    "published_at" TIMESTAMPTZ(3) NOT NULL,
    "changelog" TEXT,
    "safety_status" "SafetyStatus" NOT NULL,
    "payload" JSONB,
    CONSTRAINT "hub_pack_version_pkey" PRIMARY KEY ("pack_id", "version"),
    CONSTRAINT "hub_pack_version_pack_id_fkey" FOREIGN KEY ("pack_id") REFERENCES "hub_pack"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "hub_pack_version_pack_id_safety_status_published_at_idx" ON "hub_pack_version"("pack_id", "safety_status", "published_at" DESC);

CREATE TABLE "station" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "kind" "StationKind" NOT NULL,
    "source" "StationSource" NOT NULL,
    "country" "Country" NOT NULL,
    "latitude" DOUBLE PRECISION NOT NULL,
    "longitude" DOUBLE PRECISION NOT NULL,
    CONSTRAINT "station_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "station_kind_idx" ON "station"("kind");

CREATE TABLE "observation" (
    "station_id" TEXT NOT NULL,
    "observed_at" TIMESTAMPTZ(3) NOT NULL,
    "temp_c" DOUBLE PRECISION,
    "rh" DOUBLE PRECISION,
    "precip_mm" DOUBLE PRECISION,
    "pm25_ugm3" DOUBLE PRECISION,
    "pm10_ugm3" DOUBLE PRECISION,
    "aqi" DOUBLE PRECISION,
    CONSTRAINT "observation_pkey" PRIMARY KEY ("station_id", "observed_at"),
    CONSTRAINT "observation_station_id_fkey" FOREIGN KEY ("station_id") REFERENCES "station"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "observation_observed_at_idx" ON "observation"("observed_at");

CREATE TABLE "school_station" (
    "university_id" INTEGER NOT NULL,
    "station_id" TEXT NOT NULL,
    "kind" "StationKind" NOT NULL,
    "rank" INTEGER NOT NULL,
    "distance_m" DOUBLE PRECISION NOT NULL,
    CONSTRAINT "school_station_pkey" PRIMARY KEY ("university_id", "station_id"),
    CONSTRAINT "school_station_university_id_fkey" FOREIGN KEY ("university_id") REFERENCES "university"("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "school_station_station_id_fkey" FOREIGN KEY ("station_id") REFERENCES "station"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "school_station_university_id_kind_rank_idx" ON "school_station"("university_id", "kind", "rank");

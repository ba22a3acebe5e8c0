/**
 * The two baselines, in a process of their own (so that their CPU and memory
 * are measured apart from the gateway's):
 *
 * - **bare**, on BARE_PORT: a plain `node:http` handler for operations 2, 3
 *   and 10 that sends the SQL statements the gateway sends (through `pg`, on
 *   the gateway's server: the embedded one's socket, or PostgreSQL's) and writes the same
 *   JSON body. No GraphQL, no Prisma, no plugins, no key check.
 * - **static**, on STATIC_PORT: the gateway's exact answers (BENCH_BODIES, a
 *   JSON file of path → body), written from memory: the physical limit.
 *
 * It prints `ready` on standard output when both listen.
 */
import { readFileSync } from "node:fs";
import { createServer, type ServerResponse } from "node:http";
import pg from "pg";

type Run = <Row>(sql: string, params: unknown[]) => Promise<Row[]>;

const DATE_OID = 1082;

async function connect(): Promise<Run> {
  // The gateway's pool: as many connections, kept as long when idle (a fresh backend costs PostgreSQL's CPU).
  const pool = new pg.Pool({
    connectionString: process.env.BENCH_DATABASE_URL,
    max: 10,
    idleTimeoutMillis: Number(process.env.BARE_POOL_IDLE_MS),
  });
  const types = {
    getTypeParser: (oid: number, format?: string) => (oid === DATE_OID ? (v: string) => v : pg.types.getTypeParser(oid, format as "text")),
  };
  return async <Row>(text: string, values: unknown[]) => (await pool.query({ text, values, types } as pg.QueryConfig)).rows as Row[];
}

const COURSE = `"public"."course"."id", "public"."course"."university_id", "public"."course"."class_name", "public"."course"."course_number", "public"."course"."course_class", "public"."course"."course_name_chinese", "public"."course"."course_name_english", "public"."course"."instructor", "public"."course"."instructor_english", "public"."course"."department", "public"."course"."department_english", "public"."course"."semester", "public"."course"."start_date", "public"."course"."end_date", "public"."course"."teaching_goal", "public"."course"."teaching_goal_english", "public"."course"."teaching_content", "public"."course"."teaching_content_english", "public"."course"."class_memo", "public"."course"."is_public"`;
const TITLE = `("public"."course"."course_name_chinese" ILIKE ('%' || $1 || '%') OR "public"."course"."course_name_english" ILIKE ('%' || $2 || '%'))`;
const PACK = `"public"."hub_pack"."id", "public"."hub_pack"."name", "public"."hub_pack"."summary", "public"."hub_pack"."readme_md", "public"."hub_pack"."asset_type"::text, "public"."hub_pack"."subject", "public"."hub_pack"."education_level"::text, "public"."hub_pack"."bloom_levels", "public"."hub_pack"."difficulty", "public"."hub_pack"."star_count", "public"."hub_pack"."install_count", "public"."hub_pack"."owner_name", "public"."hub_pack"."visibility"::text, "public"."hub_pack"."safety_status"::text, "public"."hub_pack"."latest_version", "public"."hub_pack"."latest_published_at"`;
const LISTED = `("public"."hub_pack"."visibility" = CAST($1::text AS "public"."PackVisibility") AND "public"."hub_pack"."safety_status" = CAST($2::text AS "public"."SafetyStatus"))`;

interface CourseRow {
  id: number;
  university_id: number;
  [column: string]: unknown;
}

const courseItem = (c: CourseRow, school: string | undefined) => ({
  id: c.id,
  class_name: c.class_name,
  course_number: c.course_number,
  course_class: c.course_class,
  course_name_chinese: c.course_name_chinese,
  course_name_english: c.course_name_english,
  instructor: c.instructor,
  instructor_english: c.instructor_english,
  department: c.department,
  department_english: c.department_english,
  school,
  semester: c.semester,
  start_date: c.start_date,
  end_date: c.end_date,
});

async function schools(run: Run, rows: CourseRow[]): Promise<Map<number, string>> {
  const ids = rows.map((r) => r.university_id);
  const found = await run<{ id: number; name_zh: string }>(
    `SELECT "public"."university"."id", "public"."university"."name_zh" FROM "public"."university" WHERE "public"."university"."id" IN (${ids.map((_, i) => `$${i + 1}`).join(",")}) OFFSET $${ids.length + 1}`,
    [...ids, 0],
  );
  return new Map(found.map((u) => [u.id, u.name_zh]));
}

/** Operation 2: one page of public courses, optionally matching `q`. */
async function courses(run: Run, query: URLSearchParams): Promise<unknown> {
  const q = query.get("q");
  const page = Number(query.get("page") ?? 1);
  const size = Number(query.get("page_size") ?? 20);
  const where = q ? `(${TITLE} AND "public"."course"."is_public" = $3)` : `"public"."course"."is_public" = $1`;
  const filter = q ? [q, q, true] : [true];
  const n = filter.length;
  const [[count], rows] = await Promise.all([
    run<{ _count$_all: string }>(
      `SELECT COUNT(*) AS "_count$_all" FROM (SELECT "public"."course"."id" FROM "public"."course" WHERE ${where} OFFSET $${n + 1}) AS "sub"`,
      [...filter, 0],
    ),
    run<CourseRow>(
      `SELECT ${COURSE} FROM "public"."course" WHERE ${where} ORDER BY "public"."course"."semester" DESC, "public"."course"."id" ASC LIMIT $${n + 1} OFFSET $${n + 2}`,
      [...filter, size, (page - 1) * size],
    ),
  ]);
  const names = rows.length ? await schools(run, rows) : new Map();
  return {
    success: true,
    items: rows.map((c) => courseItem(c, names.get(c.university_id))),
    page,
    page_size: size,
    total: Number(count!._count$_all),
  };
}

/** Operation 3: one public course. */
async function course(run: Run, id: number): Promise<unknown> {
  const [c] = await run<CourseRow>(
    `SELECT ${COURSE} FROM "public"."course" WHERE ("public"."course"."id" = $1 AND "public"."course"."is_public" = $2) LIMIT $3 OFFSET $4`,
    [id, true, 1, 0],
  );
  if (!c) return undefined;
  const names = await schools(run, [c]);
  return {
    success: true,
    data: {
      ...courseItem(c, names.get(c.university_id)),
      teaching_goal: c.teaching_goal,
      teaching_goal_english: c.teaching_goal_english,
      teaching_content: c.teaching_content,
      teaching_content_english: c.teaching_content_english,
      class_memo: c.class_memo,
    },
  };
}

/** Operation 10: the most recent public, safety-checked Packs. */
async function packs(run: Run, query: URLSearchParams): Promise<unknown> {
  const limit = Number(query.get("limit") ?? 30);
  const [rows, [count]] = await Promise.all([
    run<Record<string, unknown>>(
      `SELECT ${PACK} FROM "public"."hub_pack" WHERE ${LISTED} ORDER BY "public"."hub_pack"."latest_published_at"DESC NULLS LAST, "public"."hub_pack"."id" ASC LIMIT $3 OFFSET $4`,
      ["public", "passed", limit + 1, 0],
    ),
    run<{ _count$_all: string }>(
      `SELECT COUNT(*) AS "_count$_all" FROM (SELECT "public"."hub_pack"."id" FROM "public"."hub_pack" WHERE ${LISTED} OFFSET $3) AS "sub"`,
      ["public", "passed", 0],
    ),
  ]);
  return {
    success: true,
    items: rows.slice(0, limit).map((p) => ({
      id: p.id,
      name: p.name,
      summary: p.summary,
      asset_type: p.asset_type,
      latest_version: p.latest_version,
      subject: p.subject,
      education_level: p.education_level,
      bloom_levels: p.bloom_levels,
      difficulty: p.difficulty,
      star_count: p.star_count,
      install_count: p.install_count,
      owner_name: p.owner_name,
    })),
    total: Number(count!._count$_all),
  };
}

const send = (res: ServerResponse, status: number, text: string) => {
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(text) });
  res.end(text);
};

const run = await connect();
const bare = createServer((req, res) => {
  const url = new URL(req.url ?? "/", "http://bare");
  const id = /^\/api\/v1\/courses\/(\d+)$/.exec(url.pathname);
  const answer =
    url.pathname === "/api/v1/courses"
      ? courses(run, url.searchParams)
      : id
        ? course(run, Number(id[1]))
        : url.pathname === "/api/v1/hub/packs"
          ? packs(run, url.searchParams)
          : Promise.resolve(undefined);
  answer.then(
    (body) => (body === undefined ? send(res, 404, '{"success":false,"error":"not found"}') : send(res, 200, JSON.stringify(body))),
    (error: unknown) => send(res, 500, JSON.stringify({ success: false, error: String(error) })),
  );
});
const bodies = new Map(
  Object.entries(JSON.parse(readFileSync(process.env.BENCH_BODIES!, "utf8")) as Record<string, string>).map(([k, v]) => [
    k,
    Buffer.from(v),
  ]),
);
const fixed = createServer((req, res) => {
  const body = bodies.get(req.url ?? "");
  if (!body) return send(res, 404, "{}");
  res.writeHead(200, { "content-type": "application/json; charset=utf-8", "content-length": body.length });
  res.end(body);
});
await Promise.all([
  new Promise<void>((resolve) => bare.listen(Number(process.env.BARE_PORT), "127.0.0.1", resolve)),
  new Promise<void>((resolve) => fixed.listen(Number(process.env.STATIC_PORT), "127.0.0.1", resolve)),
]);
process.stdout.write("ready\n");

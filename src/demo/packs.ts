import { BLOOM_ZH, DIFFICULTY_ZH, LEVEL_ZH, OWNERS, PACK_SPECS, type PackSpec } from "./pack-catalog.js";
import { LOWER_ALNUM, Rng } from "./random.js";
import { DAY_MS as DAY, isoInstant } from "./time.js";
import { AssetType, EducationLevel, PackVisibility, SafetyStatus } from "../generated/prisma/enums.js";
import type { ExportHubPack, ExportPackVersion } from "./types.js";

const ASSET_TYPES = Object.values(AssetType);
const EDUCATION_LEVELS = Object.values(EducationLevel);
const VISIBILITIES = Object.values(PackVisibility);
const SAFETY_STATUSES = Object.values(SafetyStatus);

interface Draft {
  type: AssetType;
  spec: PackSpec;
  visibility: PackVisibility;
  safety: SafetyStatus;
}

/**
 * About 40 hub Packs. Everything but the publication instants depends on the
 * seed alone; `published_at` is placed a fixed (seeded) time before `now`.
 */
export function buildHubPacks(seed: number, nowMs: number): ExportHubPack[] {
  const rng = new Rng(seed).derive("hub-packs");
  const specs = ASSET_TYPES.flatMap((type) => PACK_SPECS[type].map((spec) => ({ type, spec })));
  const drafts = assignStatuses(rng, specs);
  const ids = new Set<string>();
  let special = 0;
  return drafts.map((d) => {
    let id = `pk_${rng.string(10, LOWER_ALNUM)}`;
    while (ids.has(id)) id = `pk_${rng.string(10, LOWER_ALNUM)}`;
    ids.add(id);
    // The first public, passed Packs get the version histories the API must get right.
    const kind = d.visibility === "public" && d.safety === "passed" && special < 3 ? ++special : 0;
    return composePack(rng, d, id, kind, nowMs);
  });
}

function assignStatuses(rng: Rng, specs: { type: AssetType; spec: PackSpec }[]): Draft[] {
  const states: [PackVisibility, SafetyStatus][] = [];
  for (const v of VISIBILITIES) for (const s of SAFETY_STATUSES) if (!(v === "public" && s === "passed")) states.push([v, s]);
  while (states.length < 12) states.push([rng.pick(VISIBILITIES), rng.pick(SAFETY_STATUSES)]);
  while (states.length < specs.length) states.push(["public", "passed"]);
  // Reshuffle until public, passed Packs cover every asset type and education level.
  for (;;) {
    const order = rng.shuffle(states);
    const drafts = rng.shuffle(specs).map((s, i) => {
      const [visibility, safety] = order[i] as [PackVisibility, SafetyStatus];
      return { ...s, visibility, safety };
    });
    const shown = drafts.filter((d) => d.visibility === "public" && d.safety === "passed");
    const types = new Set(shown.map((d) => d.type));
    const levels = new Set(shown.map((d) => d.spec[3]));
    if (types.size === ASSET_TYPES.length && levels.size === EDUCATION_LEVELS.length) return drafts;
  }
}

/** Version numbers and their safety states. kind 1: 1.9.0 and 1.10.0; kind 2: newest pending; kind 3: oldest rejected. */
function versionPlan(rng: Rng, safety: SafetyStatus, kind: number): [string, SafetyStatus][] {
  if (kind === 1)
    return [
      ["1.8.2", "passed"],
      ["1.9.0", "passed"],
      ["1.10.0", "passed"],
    ];
  if (kind === 2)
    return [
      ["1.0.0", "passed"],
      ["1.1.0", "passed"],
      ["2.0.0", "pending"],
    ];
  if (kind === 3)
    return [
      ["0.9.0", "rejected"],
      ["1.0.0", "passed"],
      ["1.0.1", "passed"],
    ];
  const n = rng.weighted([
    [1, 35],
    [2, 30],
    [3, 20],
    [4, 15],
  ] as const);
  const start = rng.pick([
    [1, 0, 0],
    [1, 0, 0],
    [0, 1, 0],
    [0, 9, 0],
  ] as const);
  let major: number = start[0];
  let minor: number = start[1];
  let patch: number = start[2];
  const plan: [string, SafetyStatus][] = [];
  for (let i = 0; i < n; i++) {
    if (i > 0) {
      const bump = rng.weighted([
        ["patch", 50],
        ["minor", 40],
        ["major", 10],
      ] as const);
      if (bump === "major") [major, minor, patch] = [major + 1, 0, 0];
      else if (bump === "minor") [minor, patch] = [minor + 1, 0];
      else patch++;
    }
    plan.push([`${major}.${minor}.${patch}`, "passed"]);
  }
  const last = plan[plan.length - 1] as [string, SafetyStatus];
  if (safety !== "passed") last[1] = safety;
  else if (n > 1 && rng.chance(0.15)) last[1] = rng.pick(["pending", "rejected"] as const);
  if (safety === "rejected" && n > 1 && rng.chance(0.5)) (plan[0] as [string, SafetyStatus])[1] = "rejected";
  return plan;
}

function composePack(rng: Rng, d: Draft, id: string, kind: number, nowMs: number): ExportHubPack {
  const [name, summary, subject, level, bloom, difficulty] = d.spec;
  const plan = versionPlan(rng, d.safety, kind);
  const firstAgeDays = rng.float(40, 420);
  let t = nowMs - firstAgeDays * DAY;
  const versions: ExportPackVersion[] = plan.map(([version, safety_status], i) => {
    if (i > 0) t += rng.float(0.4, 0.9) * (nowMs - DAY - t);
    const published = Math.floor(t / 1000) * 1000;
    return {
      version,
      published_at: isoInstant(published),
      changelog: changelog(rng, i, version),
      safety_status,
      payload: payloadFor(d.type, name, subject, version),
    };
  });
  const shown = d.visibility === "public" && d.safety === "passed";
  const stars = Math.floor(Math.exp(rng.float(shown ? 0.5 : 0, shown ? 6.3 : 2.5))) - 1;
  const [ownerName, handle] = rng.pick(OWNERS);
  const latest = plan[plan.length - 1] as [string, SafetyStatus];
  return {
    id,
    name,
    summary,
    readme_md: readme(
      name,
      summary,
      subject,
      level,
      bloom.map((b) => BLOOM_ZH[b]),
      DIFFICULTY_ZH[difficulty],
      plan,
    ),
    asset_type: d.type,
    subject,
    education_level: level,
    bloom_levels: [...bloom],
    difficulty,
    star_count: stars,
    install_count: Math.round(stars * rng.float(1.5, 9)) + rng.int(0, 25),
    owner_name: ownerName,
    owner_email: `${handle}@${rng.pick(["mail.example.edu.tw", "example.com", "school.example.org"])}`,
    visibility: d.visibility,
    safety_status: d.safety,
    payload: payloadFor(d.type, name, subject, latest[0]),
    versions,
  };
}

function changelog(rng: Rng, index: number, version: string): string {
  if (index === 0) return rng.pick(["首次發布。", "Initial release.", "首次公開版本。"]);
  if (version.endsWith(".0.0")) return rng.pick(["重新設計結構，與舊版不相容。", "Breaking: restructured the payload format."]);
  return rng.pick([
    "修正錯字與範例。",
    "新增題目與詳解。",
    "調整提示語，回覆更精簡。",
    "Fixed typos in examples.",
    "Added English translations.",
    "依教師回饋調整難度。",
    "改善繁體中文用詞。",
  ]);
}

function readme(
  name: string,
  summary: string,
  subject: string,
  level: keyof typeof LEVEL_ZH,
  bloom: string[],
  difficulty: string,
  plan: [string, SafetyStatus][],
): string {
  return [
    `# ${name}`,
    "",
    summary,
    "",
    "## 適用對象",
    "",
    `- 科目：${subject}`,
    `- 教育階段：${LEVEL_ZH[level]}`,
    `- 難度：${difficulty}`,
    `- 認知層次：${bloom.join("、")}`,
    "",
    "## 使用方式",
    "",
    "1. 在課程的 Hub 頁面安裝此 Pack。",
    "2. 依課程需要調整設定，並先以教師身分試用。",
    "3. 開放給學生使用，並在課後檢視使用情形。",
    "",
    "## 版本",
    "",
    ...plan.map(([v]) => `- \`${v}\``),
    "",
  ].join("\n");
}

function payloadFor(type: AssetType, name: string, subject: string, version: string): Record<string, unknown> {
  switch (type) {
    case "skill":
      return {
        schema: "skill/1",
        version,
        instructions: `你是「${name}」。請依學生的提問，以引導而非直接給答案的方式回應。`,
        tools: ["search_course_materials", "ask_clarifying_question"],
        max_turns: 12,
      };
    case "channel_template":
      return {
        schema: "channel-template/1",
        version,
        channels: [
          { name: "公告", purpose: "教師與助教發布公告", post_permission: "teachers" },
          { name: "討論", purpose: `${subject}問題討論`, post_permission: "everyone" },
          { name: "資源分享", purpose: "講義、連結與參考資料", post_permission: "everyone" },
          { name: "進度回報", purpose: "每週進度與反思", post_permission: "everyone" },
        ],
      };
    case "quiz_bank":
      return {
        schema: "quiz-bank/1",
        version,
        questions: [1, 2, 3].map((n) => ({
          id: `q${n}`,
          type: "single_choice",
          stem: `${name}：範例題 ${n}`,
          options: ["A", "B", "C", "D"],
          answer: "ABCD".charAt(n % 4),
          explanation: "詳解請見講義。",
        })),
      };
    case "survey_bank":
      return {
        schema: "survey-bank/1",
        version,
        scale: "likert-5",
        items: ["本課程的步調適當。", "我清楚每週的學習目標。", "我願意推薦這門課給同學。"].map((prompt, i) => ({
          id: `s${i + 1}`,
          prompt,
        })),
      };
    case "ai_task":
      return {
        schema: "ai-task/1",
        version,
        prompt_template: `請扮演${subject}教師，完成「${name}」：\n{{input}}`,
        input_schema: { type: "object", properties: { input: { type: "string" } }, required: ["input"] },
        rubric: ["正確性", "具體性", "語氣適切"],
      };
  }
}

import type { AssetType, EducationLevel } from "../generated/prisma/enums.js";
import type { BloomLevel, Difficulty } from "./types.js";

/** [name, summary, subject, education level, bloom levels, difficulty] */
export type PackSpec = readonly [string, string, string, EducationLevel, readonly BloomLevel[], Difficulty];

export const PACK_SPECS: Readonly<Record<AssetType, readonly PackSpec[]>> = {
  skill: [
    [
      "蘇格拉底式提問助教",
      "以提問引導學生自行找出程式錯誤，不直接給答案。",
      "資訊科學",
      "university",
      ["understand", "apply", "analyze"],
      "intermediate",
    ],
    [
      "Essay Feedback Coach",
      "Gives rubric-based feedback on argumentative essays without rewriting them.",
      "English Writing",
      "high_school",
      ["understand", "evaluate"],
      "intermediate",
    ],
    ["國中數學解題提示", "依學生卡關的步驟提供分層提示，適用一元一次方程式。", "數學", "junior_high", ["remember", "apply"], "beginner"],
    [
      "自然實驗安全小幫手",
      "提醒國小自然實驗的安全注意事項並檢核器材清單。",
      "自然科學",
      "elementary",
      ["remember", "understand"],
      "beginner",
    ],
    ["文獻回顧整理技能", "協助研究生整理文獻矩陣並標註研究缺口。", "研究方法", "university", ["analyze", "evaluate", "create"], "advanced"],
    ["課程 FAQ 擷取", "從課程公告與講義自動整理常見問題與答覆。", "通用", "general", ["understand"], "beginner"],
    ["程式碼審查助教", "依 PEP 8 與可讀性原則審查學生的 Python 作業。", "資訊科學", "high_school", ["analyze", "evaluate"], "intermediate"],
    [
      "Lab Report Checker",
      "Checks lab reports for missing sections, units and uncertainty statements.",
      "Physics",
      "university",
      ["apply", "evaluate"],
      "intermediate",
    ],
  ],
  channel_template: [
    ["專題小組協作頻道組", "為 4–6 人專題小組建立公告、討論、資源與進度回報頻道。", "通用", "university", ["apply", "create"], "beginner"],
    ["翻轉教室三段式頻道", "課前影片提問、課中任務、課後反思的三段式頻道。", "通用", "high_school", ["understand", "apply"], "beginner"],
    ["國小班級共學園地", "適合國小班級的作業繳交與親師公告頻道。", "班級經營", "elementary", ["remember"], "beginner"],
    [
      "Journal Club Template",
      "Weekly paper discussion with presenter rotation and shared reading notes.",
      "Research Methods",
      "university",
      ["analyze", "evaluate"],
      "advanced",
    ],
    ["國中英語口說練習角", "以語音訊息進行每日英語口說打卡與同儕回饋。", "英語", "junior_high", ["apply"], "beginner"],
    ["黑客松作戰室", "黑客松期間的題目公告、隊伍媒合、導師諮詢與作品提交頻道。", "資訊科學", "general", ["create"], "intermediate"],
    [
      "高中自主學習計畫",
      "自主學習計畫提案、每週學習日誌與成果發表頻道。",
      "自主學習",
      "high_school",
      ["evaluate", "create"],
      "intermediate",
    ],
    ["教師社群共備頻道", "跨校教師共同備課、觀課與議課的頻道組。", "教師專業發展", "general", ["analyze", "create"], "intermediate"],
  ],
  quiz_bank: [
    [
      "資料結構期中複習題庫",
      "涵蓋堆疊、佇列、樹與圖的 60 題單選與簡答。",
      "資訊科學",
      "university",
      ["remember", "understand", "apply"],
      "intermediate",
    ],
    ["微積分極限與導數題庫", "微積分 (一) 前八週常見題型與詳解。", "數學", "university", ["understand", "apply"], "intermediate"],
    ["高中物理運動學題庫", "等加速度運動與拋體運動 40 題，附詳解。", "物理", "high_school", ["apply", "analyze"], "intermediate"],
    ["國中生物：細胞與遺傳", "細胞構造與孟德爾遺傳 35 題。", "生物", "junior_high", ["remember", "understand"], "beginner"],
    ["國小分數概念小測驗", "國小四年級分數大小比較與加減 25 題。", "數學", "elementary", ["remember", "understand"], "beginner"],
    ["Python 入門測驗", "變數、條件、迴圈與函式的 50 題入門測驗。", "資訊科學", "general", ["remember", "apply"], "beginner"],
    [
      "TOEIC Reading Practice Set",
      "30 reading comprehension items modelled on business English.",
      "English",
      "general",
      ["understand", "analyze"],
      "intermediate",
    ],
    [
      "機器學習觀念檢核",
      "偏差與變異、過擬合與正則化的觀念題。",
      "人工智慧",
      "university",
      ["understand", "analyze", "evaluate"],
      "advanced",
    ],
  ],
  survey_bank: [
    ["期中教學回饋問卷", "12 題李克特量表與 2 題開放題，適用大學課程期中回饋。", "通用", "university", ["evaluate"], "beginner"],
    ["AI 助教使用經驗調查", "了解學生使用 AI 助教的頻率、信任程度與對學習的影響。", "教育科技", "university", ["evaluate"], "beginner"],
    ["學習動機量表（精簡版）", "動機與學習策略量表精簡版 20 題。", "教育心理", "high_school", ["understand", "evaluate"], "intermediate"],
    ["國中生數位學習態度問卷", "國中生使用平板學習的態度與遇到的困難。", "教育科技", "junior_high", ["evaluate"], "beginner"],
    ["國小閱讀興趣調查", "以圖示量表調查國小學生的閱讀習慣。", "國語", "elementary", ["remember"], "beginner"],
    ["小組合作同儕互評表", "專題小組貢獻度與合作態度的同儕互評。", "通用", "general", ["evaluate"], "beginner"],
    [
      "Course Workload Check-in",
      "Weekly pulse survey on hours spent and perceived difficulty.",
      "General",
      "general",
      ["evaluate"],
      "beginner",
    ],
    ["實驗課安全認知問卷", "化學實驗課前的安全知識與態度自評。", "化學", "high_school", ["remember", "understand"], "beginner"],
  ],
  ai_task: [
    ["作文評分規準批改", "依六級分規準為作文評分並產生具體回饋。", "國語文", "junior_high", ["evaluate"], "intermediate"],
    ["程式作業自動回饋", "依測資結果與程式碼風格產生逐項回饋。", "資訊科學", "university", ["analyze", "evaluate"], "advanced"],
    ["英文單字例句產生器", "依單字表產生符合學生程度的例句與克漏字練習。", "英語", "elementary", ["remember", "apply"], "beginner"],
    ["討論串摘要與迷思偵測", "摘要課程討論串並標記常見的迷思概念。", "通用", "university", ["analyze"], "intermediate"],
    ["教案草稿產生器", "依課綱的學習表現與學習內容產生 50 分鐘教案草稿。", "教師專業發展", "general", ["create"], "intermediate"],
    ["高中歷史史料判讀", "提供史料並生成判讀問題與參考答案。", "歷史", "high_school", ["analyze", "evaluate"], "advanced"],
    [
      "Lecture Transcript to Study Notes",
      "Turns a lecture transcript into structured notes with key terms and review questions.",
      "General",
      "general",
      ["understand", "create"],
      "beginner",
    ],
    [
      "探究報告評語助手",
      "依探究與實作評量規準為國中自然科報告撰寫評語。",
      "自然科學",
      "junior_high",
      ["evaluate", "create"],
      "intermediate",
    ],
  ],
};

export const OWNERS: ReadonlyArray<readonly [string, string]> = [
  ["陳志明老師", "chihming.chen"],
  ["Prof. Ya-Ting Lin", "yating.lin"],
  ["數位學習中心", "elearning"],
  ["黃冠宇", "kuanyu.huang"],
  ["高中資訊科社群", "hs-cs-community"],
  ["Sarah Kim", "sarah.kim"],
  ["蔡思涵", "szuhan.tsai"],
  ["張文欣老師", "wenhsin.chang"],
  ["臺大資工 AI 教學小組", "csie-ai-teaching"],
  ["David Miller", "dmiller"],
  ["李柏均", "pochun.lee"],
  ["國小自然領域共備群", "elem-science"],
];

export const LEVEL_ZH: Readonly<Record<EducationLevel, string>> = {
  university: "大學",
  high_school: "高中",
  junior_high: "國中",
  elementary: "國小",
  general: "不限",
};
export const DIFFICULTY_ZH: Readonly<Record<Difficulty, string>> = { beginner: "入門", intermediate: "中階", advanced: "進階" };
export const BLOOM_ZH: Readonly<Record<BloomLevel, string>> = {
  remember: "記憶",
  understand: "理解",
  apply: "應用",
  analyze: "分析",
  evaluate: "評鑑",
  create: "創造",
};

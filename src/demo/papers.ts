import type { ConferenceRelationship, ExportConference, ExportPaper } from "./types.js";

type ConferenceRow = [slug: string, name: string, nameShort: string, year: number, dates: string, location: string, website: string, organizer: string, indexing: string, relationship: ConferenceRelationship];

const CONFERENCES: readonly ConferenceRow[] = [
  ["icce-2024", "International Conference on Computers in Education", "ICCE 2024", 2024, "2024-11-25 to 2024-11-29", "Manila, Philippines", "https://icce2024.apsce.net/", "Asia-Pacific Society for Computers in Education (APSCE)", "Scopus", "participated"],
  ["lak-2025", "International Conference on Learning Analytics and Knowledge", "LAK25", 2025, "2025-03-03 to 2025-03-07", "Dublin, Ireland", "https://www.solaresearch.org/events/lak/lak25/", "Society for Learning Analytics Research (SoLAR)", "ACM DL, Scopus, EI", "participated"],
  ["chi-2025", "ACM CHI Conference on Human Factors in Computing Systems", "CHI 2025", 2025, "2025-04-26 to 2025-05-01", "Yokohama, Japan", "https://chi2025.acm.org/", "ACM SIGCHI", "ACM DL, Scopus, EI", "participated"],
  ["edm-2025", "International Conference on Educational Data Mining", "EDM 2025", 2025, "2025-07-20 to 2025-07-23", "Palermo, Italy", "https://educationaldatamining.org/edm2025/", "International Educational Data Mining Society", "Scopus", "participated"],
  ["aied-2025", "International Conference on Artificial Intelligence in Education", "AIED 2025", 2025, "2025-07-22 to 2025-07-26", "Palermo, Italy", "https://aied2025.itd.cnr.it/", "International Artificial Intelligence in Education Society", "Springer LNCS, Scopus, EI", "participated"],
  ["gccce-2026", "Global Chinese Conference on Computers in Education", "GCCCE 2026", 2026, "2026-06-10 to 2026-06-13", "Taipei, Taiwan", "https://www.gcsce.net/", "Global Chinese Society for Computers in Education (GCSCE)", "Proceedings", "participated"],
  ["icalt-2026", "IEEE International Conference on Advanced Learning Technologies", "ICALT 2026", 2026, "2026-07-06 to 2026-07-09", "Kyoto, Japan", "https://tc.computer.org/tclt/icalt/", "IEEE Technical Community on Learning Technology", "IEEE Xplore, Scopus, EI", "participated"],
  ["tanet-2026", "Taiwan Academic Network Conference (臺灣網際網路研討會)", "TANET 2026", 2026, "2026-10-21 to 2026-10-23", "Kaohsiung, Taiwan", "https://tanet2026.example.edu.tw/", "Ministry of Education, Taiwan", "Proceedings", "participated"],
  ["sigcse-ts-2027", "ACM Technical Symposium on Computer Science Education", "SIGCSE TS 2027", 2027, "2027-02-24 to 2027-02-27", "TBA, United States", "https://sigcse2027.sigcse.org/", "ACM SIGCSE", "ACM DL, Scopus, EI", "watching"],
  ["lak-2027", "International Conference on Learning Analytics and Knowledge", "LAK27", 2027, "2027-03-15 to 2027-03-19", "TBA", "https://www.solaresearch.org/events/lak/", "Society for Learning Analytics Research (SoLAR)", "ACM DL, Scopus, EI", "watching"],
  ["las-2027", "ACM Conference on Learning @ Scale", "L@S 2027", 2027, "2027-07-12 to 2027-07-14", "TBA", "https://learningatscale.acm.org/", "ACM", "ACM DL, Scopus", "watching"],
];

export function buildConferences(): ExportConference[] {
  return CONFERENCES.map(([slug, name, name_short, year, dates, location, website, organizer, indexing, relationship]) => ({
    slug, name, name_short, year, dates, location, website, organizer, indexing, relationship,
  }));
}

const PEOPLE = ["Chih-Ming Chen", "Ya-Ting Lin", "Kuan-Yu Huang", "Szu-Han Tsai", "Wen-Hsin Chang", "Po-Chun Lee", "Hsiu-Ling Wu", "David Miller", "Sarah Kim", "Chia-Hao Hsieh"];

type PaperRow = [slug: string, title: string, titleZh: string, authors: number[], conference: string, category: string, feature: string, award: string | null];

const PAPERS: readonly PaperRow[] = [
  ["socratic-llm-tutor-novice-programmers", "Scaffolding Novice Programmers with an LLM-Based Socratic Tutor", "以大型語言模型蘇格拉底式家教支援程式設計初學者", [0, 3, 1], "icce-2024", "ai-in-education", "ai-tutor", "Best Paper Award"],
  ["bloom-aligned-quiz-generation-zh", "Automatic Generation of Bloom-Aligned Quiz Items in Traditional Chinese", "依布魯姆認知層次自動生成繁體中文測驗題目", [2, 0], "icce-2024", "ai-in-education", "quiz-generator", null],
  ["mid-semester-survey-banks", "Survey Banks for Mid-Semester Feedback: Reliability and Use", "期中回饋問卷題庫：信度與使用情形", [4, 6, 0], "icce-2024", "education-technology", "course-hub", null],
  ["teacher-prompt-practices", "Teacher Prompt Engineering Practices in Higher Education", "高等教育教師之提示工程實務", [1, 4], "icce-2024", "education-technology", "ai-tutor", null],
  ["dashboards-blended-courses", "Learning Analytics Dashboards for Large Blended Courses: A Design-Based Study", "大型混成課程之學習分析儀表板：設計本位研究", [3, 0, 8], "lak-2025", "learning-analytics", "learning-dashboard", null],
  ["clickstream-disengagement-15-universities", "Predicting Course Disengagement from Clickstream Data Across Fifteen Universities", "以點擊流資料預測跨十五所大學之課程投入下降", [5, 3, 0], "lak-2025", "learning-analytics", "learning-dashboard", "Best Short Paper Nominee"],
  ["explainable-early-warning-calculus", "Explainable Early-Warning Models for Introductory Calculus", "微積分入門課之可解釋早期預警模型", [5, 2], "lak-2025", "learning-analytics", "learning-dashboard", null],
  ["co-designing-ai-teaching-assistants", "Co-Designing AI Teaching Assistants with University Instructors", "與大學教師共同設計 AI 教學助理", [1, 9, 7, 0], "chi-2025", "hci", "ai-tutor", null],
  ["course-hub-pack-adoption", "Sharing Teaching Designs as Reusable Packs: Adoption Patterns in a Course Hub", "以可重用教學包分享教學設計：課程共享平台之採用模式", [4, 5, 0], "edm-2025", "learning-analytics", "course-hub", null],
  ["cognitive-load-ai-programming-labs", "Measuring Cognitive Load During AI-Assisted Programming Labs", "AI 輔助程式實作課之認知負荷測量", [3, 9], "edm-2025", "learning-analytics", "ai-tutor", null],
  ["immediate-ai-feedback-efl-writing", "Effects of Immediate AI Feedback on Writing Revision in EFL Classrooms", "即時 AI 回饋對英語為外語課堂寫作修改之影響", [6, 1, 0], "aied-2025", "ai-in-education", "ai-tutor", "Best Student Paper Nominee"],
  ["guardrails-student-facing-tutors", "Guardrails for Student-Facing LLM Tutors: A Safety Review Pipeline", "學生端 LLM 家教的防護機制：安全審查流程", [2, 5, 0], "aied-2025", "ai-in-education", "course-hub", null],
  ["rubric-guided-peer-assessment", "Peer Assessment with Rubric-Guided Language Models", "以評分規準引導之語言模型同儕互評", [9, 6, 8], "aied-2025", "ai-in-education", "ai-tutor", null],
  ["conversational-agents-course-qa", "Conversational Agents for Course Q&A: Evidence from 300 Courses", "課程問答對話代理：來自三百門課程的證據", [0, 1, 2, 3], "gccce-2026", "education-technology", "ai-tutor", null],
  ["channel-templates-team-based-learning", "Channel Templates for Team-Based Learning in Online Discussion Spaces", "線上討論空間中團隊導向學習之頻道範本", [4, 9], "gccce-2026", "education-technology", "channels", null],
  ["cross-cultural-ai-tutor-use", "A Cross-Cultural Comparison of AI Tutor Use in Taiwan and the United States", "臺灣與美國 AI 家教使用之跨文化比較", [1, 7, 8, 0], "icalt-2026", "ai-in-education", "ai-tutor", null],
  ["multilingual-course-search", "Multilingual Course Search for Cross-Institution Enrollment", "跨校選課之多語課程搜尋", [5, 2], "icalt-2026", "education-technology", "public-api", null],
  ["low-bandwidth-ai-tutor-access", "Designing Equitable Access to AI Tutors on Low-Bandwidth Campuses", "低頻寬校園之 AI 家教公平近用設計", [9, 3, 0], "icalt-2026", "hci", "ai-tutor", null],
  ["privacy-preserving-course-metadata-api", "Privacy-Preserving Public APIs for Course Metadata", "保護隱私的課程後設資料公開 API", [2, 0], "tanet-2026", "education-technology", "public-api", "Excellent Paper Award"],
  ["campus-air-quality-weather-attendance", "Campus Air Quality, Weather and Class Attendance in Taiwanese Universities", "臺灣大學校園之空氣品質、天氣與出席率", [3, 5, 0], "tanet-2026", "learning-analytics", "environment-data", null],
];

export function buildPapers(): ExportPaper[] {
  const years = new Map(CONFERENCES.map((c) => [c[0], c[3]] as const));
  const seq = new Map<string, number>();
  return PAPERS.map(([slug, title, title_zh, authors, conference, category, platform_feature, award]) => {
    const n = (seq.get(conference) ?? 0) + 1;
    seq.set(conference, n);
    const year = years.get(conference);
    if (year === undefined) throw new Error(`paper ${slug}: unknown conference ${conference}`);
    return {
      slug,
      title,
      title_zh,
      authors: authors.map((i) => PEOPLE[i] ?? "Chih-Ming Chen"),
      conference,
      year,
      doi: `10.5555/${conference}.${String(100 + n * 7).padStart(4, "0")}`,
      category,
      platform_feature,
      award,
    };
  });
}

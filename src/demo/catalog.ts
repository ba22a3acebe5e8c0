/** Departments, course titles and syllabus topics used to compose demo courses. */

/** [Chinese title, English title, year level 1–4 (5 = graduate), has a (一)/(二) sequel]. */
export type CourseTemplate = readonly [string, string, number, boolean?];
export type Pair = readonly [string, string];

export interface Department {
  /** Course number prefix at Taiwanese schools, e.g. "CSIE". */
  code: string;
  /** Course number prefix at US schools, e.g. "CS". */
  usCode: string;
  zh: string;
  en: string;
  /** Short form used in class names, e.g. 資工 → 資工二甲. */
  abbr: string;
  /** Relative share of courses on the platform. */
  weight: number;
  courses: readonly CourseTemplate[];
  topics: readonly Pair[];
}

export const DEPARTMENTS: Readonly<Record<string, Department>> = {
  CSIE: {
    code: "CSIE", usCode: "CS", zh: "資訊工程學系", en: "Department of Computer Science and Information Engineering", abbr: "資工", weight: 9,
    courses: [
      ["計算機程式設計", "Computer Programming", 1, true], ["資料結構", "Data Structures", 2], ["演算法", "Algorithms", 2],
      ["作業系統", "Operating Systems", 3], ["計算機網路", "Computer Networks", 3], ["資料庫系統", "Database Systems", 3],
      ["機器學習導論", "Introduction to Machine Learning", 3], ["深度學習", "Deep Learning", 5], ["人工智慧導論", "Introduction to Artificial Intelligence", 3],
      ["軟體工程", "Software Engineering", 3], ["網頁程式設計", "Web Programming", 2], ["自然語言處理", "Natural Language Processing", 5],
      ["計算機結構", "Computer Architecture", 3], ["離散數學", "Discrete Mathematics", 1], ["資訊安全導論", "Introduction to Information Security", 4],
      ["編譯器設計", "Compiler Design", 4], ["電腦視覺", "Computer Vision", 5], ["大型語言模型應用", "Applications of Large Language Models", 5],
    ],
    topics: [
      ["變數、型別與控制流程", "variables, types and control flow"], ["遞迴與分治法", "recursion and divide-and-conquer"],
      ["樹與圖的走訪", "tree and graph traversal"], ["時間與空間複雜度分析", "time and space complexity analysis"],
      ["動態規劃", "dynamic programming"], ["監督式學習與模型評估", "supervised learning and model evaluation"],
      ["神經網路與反向傳播", "neural networks and backpropagation"], ["版本控制與協作開發", "version control and collaborative development"],
      ["行程與執行緒", "processes and threads"], ["關聯式資料模型與 SQL", "the relational model and SQL"],
      ["TCP/IP 協定堆疊", "the TCP/IP protocol stack"], ["提示工程與檢索增強生成", "prompt engineering and retrieval-augmented generation"],
    ],
  },
  EE: {
    code: "EE", usCode: "EE", zh: "電機工程學系", en: "Department of Electrical Engineering", abbr: "電機", weight: 5,
    courses: [
      ["電路學", "Electric Circuits", 1, true], ["電子學", "Electronics", 2, true], ["訊號與系統", "Signals and Systems", 2],
      ["電磁學", "Electromagnetics", 2, true], ["數位系統設計", "Digital System Design", 2], ["通訊原理", "Principles of Communications", 3],
      ["控制系統", "Control Systems", 3], ["嵌入式系統", "Embedded Systems", 4], ["機率與隨機過程", "Probability and Random Processes", 3],
    ],
    topics: [
      ["克希荷夫定律與節點分析", "Kirchhoff's laws and nodal analysis"], ["一階與二階電路暫態", "transients of first- and second-order circuits"],
      ["拉普拉斯轉換", "the Laplace transform"], ["傅立葉分析", "Fourier analysis"], ["運算放大器", "operational amplifiers"],
      ["有限狀態機", "finite-state machines"], ["回授與穩定度", "feedback and stability"], ["數位調變", "digital modulation"],
      ["微控制器與感測器介面", "microcontrollers and sensor interfacing"], ["Verilog 硬體描述語言", "the Verilog hardware description language"],
    ],
  },
  MATH: {
    code: "MATH", usCode: "MATH", zh: "數學系", en: "Department of Mathematics", abbr: "數學", weight: 6,
    courses: [
      ["微積分", "Calculus", 1, true], ["線性代數", "Linear Algebra", 1, true], ["機率論", "Probability Theory", 2],
      ["高等微積分", "Advanced Calculus", 2, true], ["常微分方程", "Ordinary Differential Equations", 2], ["數值分析", "Numerical Analysis", 3],
      ["代數導論", "Introduction to Algebra", 3], ["統計學", "Statistics", 2], ["複變函數論", "Complex Analysis", 3],
    ],
    topics: [
      ["極限與連續", "limits and continuity"], ["導數及其應用", "derivatives and their applications"], ["定積分與瑕積分", "definite and improper integrals"],
      ["級數與泰勒展開", "series and Taylor expansions"], ["向量空間與線性轉換", "vector spaces and linear transformations"],
      ["特徵值與對角化", "eigenvalues and diagonalisation"], ["隨機變數與期望值", "random variables and expectation"],
      ["中央極限定理", "the central limit theorem"], ["群、環與體", "groups, rings and fields"], ["數值方法的誤差分析", "error analysis of numerical methods"],
    ],
  },
  PHYS: {
    code: "PHYS", usCode: "PHYS", zh: "物理學系", en: "Department of Physics", abbr: "物理", weight: 3,
    courses: [
      ["普通物理學", "General Physics", 1, true], ["普通物理實驗", "General Physics Laboratory", 1, true], ["古典力學", "Classical Mechanics", 2],
      ["量子力學", "Quantum Mechanics", 3, true], ["熱統計物理", "Thermal and Statistical Physics", 3], ["電動力學", "Electrodynamics", 3],
    ],
    topics: [
      ["牛頓運動定律", "Newton's laws of motion"], ["功與能量守恆", "work and conservation of energy"], ["振動與波動", "oscillations and waves"],
      ["靜電學與高斯定律", "electrostatics and Gauss's law"], ["熱力學定律", "the laws of thermodynamics"], ["薛丁格方程式", "the Schrödinger equation"],
      ["拉格朗日力學", "Lagrangian mechanics"], ["實驗誤差與數據處理", "experimental uncertainty and data analysis"],
    ],
  },
  ME: {
    code: "ME", usCode: "ME", zh: "機械工程學系", en: "Department of Mechanical Engineering", abbr: "機械", weight: 3,
    courses: [
      ["工程圖學", "Engineering Graphics", 1], ["靜力學", "Statics", 1], ["材料力學", "Mechanics of Materials", 2],
      ["熱力學", "Thermodynamics", 2, true], ["流體力學", "Fluid Mechanics", 3], ["機構學", "Mechanisms", 3], ["機器人學導論", "Introduction to Robotics", 4],
    ],
    topics: [
      ["力系與平衡", "force systems and equilibrium"], ["應力與應變", "stress and strain"], ["樑的彎曲", "bending of beams"],
      ["理想氣體與循環", "ideal gases and cycles"], ["伯努利方程式", "Bernoulli's equation"], ["連桿機構分析", "analysis of linkages"],
      ["電腦輔助設計", "computer-aided design"], ["運動學與軌跡規劃", "kinematics and trajectory planning"],
    ],
  },
  CHE: {
    code: "CHE", usCode: "CHEME", zh: "化學工程學系", en: "Department of Chemical Engineering", abbr: "化工", weight: 2,
    courses: [
      ["普通化學", "General Chemistry", 1, true], ["有機化學", "Organic Chemistry", 2, true], ["化工熱力學", "Chemical Engineering Thermodynamics", 2],
      ["輸送現象", "Transport Phenomena", 3], ["程序控制", "Process Control", 4], ["反應工程", "Chemical Reaction Engineering", 3],
    ],
    topics: [
      ["原子結構與化學鍵", "atomic structure and chemical bonding"], ["化學平衡", "chemical equilibrium"], ["反應動力學", "reaction kinetics"],
      ["質能均衡", "mass and energy balances"], ["相平衡", "phase equilibria"], ["熱傳與質傳", "heat and mass transfer"], ["PID 控制器", "PID controllers"],
    ],
  },
  ECON: {
    code: "ECON", usCode: "ECON", zh: "經濟學系", en: "Department of Economics", abbr: "經濟", weight: 3,
    courses: [
      ["經濟學原理", "Principles of Economics", 1, true], ["個體經濟學", "Microeconomics", 2, true], ["總體經濟學", "Macroeconomics", 2, true],
      ["計量經濟學", "Econometrics", 3], ["賽局理論", "Game Theory", 3], ["行為經濟學", "Behavioral Economics", 4],
    ],
    topics: [
      ["供給與需求", "supply and demand"], ["消費者選擇", "consumer choice"], ["市場結構", "market structure"], ["國民所得與經濟成長", "national income and growth"],
      ["貨幣與通貨膨脹", "money and inflation"], ["迴歸分析", "regression analysis"], ["納許均衡", "Nash equilibrium"], ["有限理性與偏誤", "bounded rationality and biases"],
    ],
  },
  BA: {
    code: "BA", usCode: "MGMT", zh: "企業管理學系", en: "Department of Business Administration", abbr: "企管", weight: 3,
    courses: [
      ["管理學", "Management", 1], ["會計學", "Accounting", 1, true], ["行銷管理", "Marketing Management", 2],
      ["財務管理", "Financial Management", 2], ["組織行為", "Organizational Behavior", 2], ["商業資料分析", "Business Data Analytics", 3],
    ],
    topics: [
      ["規劃、組織、領導與控制", "planning, organising, leading and controlling"], ["財務報表", "financial statements"], ["市場區隔與定位", "segmentation and positioning"],
      ["貨幣時間價值", "the time value of money"], ["團隊動力", "team dynamics"], ["樞紐分析與視覺化", "pivot analysis and visualisation"], ["個案討論", "case discussions"],
    ],
  },
  IM: {
    code: "IM", usCode: "INFO", zh: "資訊管理學系", en: "Department of Information Management", abbr: "資管", weight: 4,
    courses: [
      ["資訊管理導論", "Introduction to Information Management", 1], ["程式設計", "Programming", 1, true], ["系統分析與設計", "Systems Analysis and Design", 2],
      ["資料探勘", "Data Mining", 3], ["電子商務", "Electronic Commerce", 3], ["商業智慧", "Business Intelligence", 4],
    ],
    topics: [
      ["企業資訊系統", "enterprise information systems"], ["Python 程式基礎", "Python fundamentals"], ["UML 塑模", "UML modelling"],
      ["分類與分群", "classification and clustering"], ["關聯規則", "association rules"], ["資料倉儲", "data warehousing"], ["數位轉型個案", "digital transformation cases"],
    ],
  },
  FLL: {
    code: "FL", usCode: "ENGL", zh: "外國語文學系", en: "Department of Foreign Languages and Literatures", abbr: "外文", weight: 3,
    courses: [
      ["大一英文", "Freshman English", 1, true], ["英語聽講", "English Listening and Speaking", 1], ["英文寫作", "English Composition", 2, true],
      ["英國文學史", "History of English Literature", 2, true], ["語言學概論", "Introduction to Linguistics", 2], ["日語", "Japanese", 1, true],
    ],
    topics: [
      ["學術閱讀策略", "academic reading strategies"], ["段落與論說文寫作", "paragraph and argumentative writing"], ["簡報與口語表達", "presentations and oral expression"],
      ["中古與文藝復興文學", "medieval and Renaissance literature"], ["語音學與音韻學", "phonetics and phonology"], ["同儕互評", "peer review"],
    ],
  },
  CL: {
    code: "CL", usCode: "CHIN", zh: "中國文學系", en: "Department of Chinese Literature", abbr: "中文", weight: 2,
    courses: [
      ["大一國文", "College Chinese", 1, true], ["詩選", "Selected Readings in Classical Poetry", 2], ["現代文學", "Modern Chinese Literature", 2],
      ["文字學", "Chinese Philology", 2], ["文學與電影", "Literature and Film", 3],
    ],
    topics: [
      ["先秦散文", "pre-Qin prose"], ["唐詩與宋詞", "Tang poetry and Song lyrics"], ["臺灣現代小說", "modern Taiwanese fiction"],
      ["六書與字形演變", "the six scripts and the evolution of characters"], ["改編與影像敘事", "adaptation and visual narrative"], ["閱讀心得寫作", "reflective writing"],
    ],
  },
  EDU: {
    code: "EDU", usCode: "EDUC", zh: "教育學系", en: "Department of Education", abbr: "教育", weight: 4,
    courses: [
      ["教育心理學", "Educational Psychology", 1], ["教學原理", "Principles of Teaching", 2], ["教育測驗與評量", "Educational Testing and Assessment", 2],
      ["課程發展與設計", "Curriculum Development and Design", 3], ["數位學習設計", "Digital Learning Design", 3], ["教育統計", "Educational Statistics", 2],
      ["學習分析導論", "Introduction to Learning Analytics", 5],
    ],
    topics: [
      ["學習理論", "theories of learning"], ["布魯姆認知層次", "Bloom's taxonomy"], ["形成性評量", "formative assessment"],
      ["差異化教學", "differentiated instruction"], ["教學設計模式 ADDIE", "the ADDIE instructional design model"], ["信度與效度", "reliability and validity"],
      ["學習歷程資料", "learning process data"], ["生成式 AI 與教學", "generative AI in teaching"],
    ],
  },
  PSY: {
    code: "PSY", usCode: "PSYCH", zh: "心理學系", en: "Department of Psychology", abbr: "心理", weight: 2,
    courses: [
      ["普通心理學", "General Psychology", 1, true], ["認知心理學", "Cognitive Psychology", 2], ["心理統計", "Statistics for Psychology", 2, true],
      ["社會心理學", "Social Psychology", 2], ["發展心理學", "Developmental Psychology", 3],
    ],
    topics: [
      ["知覺與注意力", "perception and attention"], ["記憶與遺忘", "memory and forgetting"], ["假設檢定", "hypothesis testing"],
      ["態度與說服", "attitudes and persuasion"], ["生命全程發展", "life-span development"], ["研究倫理", "research ethics"],
    ],
  },
  LS: {
    code: "LS", usCode: "BIO", zh: "生命科學系", en: "Department of Life Science", abbr: "生科", weight: 2,
    courses: [
      ["普通生物學", "General Biology", 1, true], ["生物化學", "Biochemistry", 2, true], ["分子生物學", "Molecular Biology", 3],
      ["遺傳學", "Genetics", 2], ["生物資訊學", "Bioinformatics", 4],
    ],
    topics: [
      ["細胞構造", "cell structure"], ["酵素與代謝", "enzymes and metabolism"], ["DNA 複製與轉錄", "DNA replication and transcription"],
      ["孟德爾遺傳", "Mendelian inheritance"], ["序列比對", "sequence alignment"], ["生態與演化", "ecology and evolution"],
    ],
  },
  CE: {
    code: "CE", usCode: "CEE", zh: "土木工程學系", en: "Department of Civil Engineering", abbr: "土木", weight: 2,
    courses: [
      ["工程數學", "Engineering Mathematics", 2, true], ["結構學", "Structural Analysis", 3, true], ["土壤力學", "Soil Mechanics", 3],
      ["測量學", "Surveying", 2], ["營建管理", "Construction Management", 4],
    ],
    topics: [
      ["常微分方程在工程上的應用", "ODEs in engineering"], ["靜定與靜不定結構", "determinate and indeterminate structures"], ["土壤壓密", "soil consolidation"],
      ["水準測量與導線測量", "levelling and traverse surveying"], ["工程進度與成本控制", "schedule and cost control"], ["耐震設計", "seismic design"],
    ],
  },
  GE: {
    code: "GE", usCode: "GEN", zh: "通識教育中心", en: "Center for General Education", abbr: "通識", weight: 6,
    courses: [
      ["通識：環境與社會", "General Education: Environment and Society", 1], ["通識：人工智慧與社會", "General Education: AI and Society", 1],
      ["通識：科技與倫理", "General Education: Technology and Ethics", 1], ["通識：音樂欣賞", "General Education: Music Appreciation", 1],
      ["通識：臺灣史", "General Education: History of Taiwan", 1], ["通識：永續發展", "General Education: Sustainable Development", 1],
      ["通識：媒體素養", "General Education: Media Literacy", 1], ["通識：生命教育", "General Education: Life Education", 1],
      ["通識：空氣品質與健康", "General Education: Air Quality and Health", 1],
    ],
    topics: [
      ["氣候變遷與調適", "climate change and adaptation"], ["演算法偏誤", "algorithmic bias"], ["隱私與資料治理", "privacy and data governance"],
      ["聆聽與賞析", "listening and appreciation"], ["臺灣的族群與歷史", "peoples and history of Taiwan"], ["聯合國永續發展目標", "the UN Sustainable Development Goals"],
      ["假訊息辨識", "recognising disinformation"], ["細懸浮微粒與健康", "fine particulate matter and health"], ["小組專題與反思", "group projects and reflection"],
    ],
  },
};

/** Departments offered by each school (by code of the university); every school also has GE. */
export const SCHOOL_DEPARTMENTS: Readonly<Record<string, readonly string[]>> = {
  NTU: ["CSIE", "EE", "MATH", "PHYS", "ME", "CHE", "ECON", "BA", "IM", "FLL", "CL", "PSY", "LS", "CE"],
  NTHU: ["CSIE", "EE", "MATH", "PHYS", "CHE", "ECON", "FLL", "CL", "EDU", "LS"],
  NYCU: ["CSIE", "EE", "MATH", "PHYS", "ME", "IM", "BA", "FLL", "LS", "CE"],
  NCKU: ["CSIE", "EE", "MATH", "PHYS", "ME", "CHE", "ECON", "BA", "IM", "FLL", "CL", "PSY", "LS", "CE"],
  NCCU: ["CSIE", "MATH", "ECON", "BA", "IM", "FLL", "CL", "EDU", "PSY"],
  NCU: ["CSIE", "EE", "MATH", "PHYS", "ME", "CHE", "ECON", "BA", "IM", "FLL", "CL", "CE"],
  NCHU: ["CSIE", "EE", "MATH", "PHYS", "ME", "CHE", "ECON", "BA", "IM", "FLL", "CL", "LS", "CE"],
  NSYSU: ["CSIE", "EE", "MATH", "PHYS", "ME", "CHE", "ECON", "BA", "IM", "FLL", "CL", "EDU", "LS"],
  NTNU: ["CSIE", "EE", "MATH", "PHYS", "EDU", "PSY", "FLL", "CL", "LS"],
  NTUT: ["CSIE", "EE", "ME", "CHE", "IM", "BA", "FLL", "CE"],
  NUK: ["CSIE", "EE", "MATH", "ECON", "BA", "IM", "FLL", "CE", "LS"],
  NDHU: ["CSIE", "EE", "MATH", "PHYS", "ECON", "BA", "IM", "FLL", "CL", "EDU", "LS"],
  UW: ["CSIE", "EE", "MATH", "PHYS", "ME", "ECON", "FLL", "PSY", "LS", "CE", "EDU"],
  STANFORD: ["CSIE", "EE", "MATH", "PHYS", "ME", "CHE", "ECON", "BA", "PSY", "EDU"],
  CMU: ["CSIE", "EE", "MATH", "PHYS", "ME", "CHE", "ECON", "BA", "IM", "PSY"],
};

/** US schools name departments the American way. */
export const US_DEPARTMENT_NAMES: Readonly<Record<string, Pair>> = {
  CSIE: ["電腦科學系", "Department of Computer Science"],
  EE: ["電機與電腦工程學系", "Department of Electrical and Computer Engineering"],
  FLL: ["英文系", "Department of English"],
  LS: ["生物學系", "Department of Biology"],
  CE: ["土木與環境工程學系", "Department of Civil and Environmental Engineering"],
  IM: ["資訊系統學系", "Department of Information Systems"],
  BA: ["管理學院", "School of Management"],
  GE: ["通識教育學院", "College of General Studies"],
};

export const GOAL_TEMPLATES: readonly Pair[] = [
  ["本課程介紹{course}的基本概念與方法，使學生能運用「{t1}」、「{t2}」等知識解決實際問題。", "This course introduces the core concepts and methods of {course_en}, so that students can apply {t1}, together with {t2}, to real problems."],
  ["培養學生對「{t1}」的理解，並透過實作練習建立「{t2}」的能力。", "Students build an understanding of {t1} and, through hands-on practice, the ability to work with {t2}."],
  ["學生修畢本課程後，應能說明「{t1}」的原理、分析「{t2}」的相關問題，並完成一份期末專題。", "On completing the course, students should be able to explain the principles of {t1}, analyse problems involving {t2}, and complete a final project."],
  ["結合課堂講授、小組討論與 AI 助教，引導學生循序掌握「{course}」的核心內容。", "Combining lectures, group discussion and an AI teaching assistant, the course guides students step by step through the core of {course_en}."],
];

export const MEMOS: readonly Pair[] = [
  ["本課程採翻轉教學，請於課前觀看教學影片。", "Flipped classroom: please watch the lecture videos before class."],
  ["請自備筆記型電腦。", "Please bring your own laptop."],
  ["本課程以英語授課。", "This course is taught in English."],
  ["選課人數上限 60 人。", "Enrollment is capped at 60 students."],
  ["課程助教時間：每週三 14:00–16:00。", "TA office hours: Wednesdays 14:00–16:00."],
  ["本課程使用平台 AI 助教，提問紀錄不列入成績。", "This course uses the platform's AI tutor; questions asked are not graded."],
  ["期中考與期末考皆為紙筆測驗。", "Midterm and final exams are written exams."],
];

export const CONTENT_OPENING: Pair = ["課程介紹與學習目標", "Course overview and learning goals"];
export const CONTENT_MIDTERM: Pair = ["期中考", "Midterm exam"];
export const CONTENT_FINAL: Pair = ["期末專題報告", "Final project presentations"];

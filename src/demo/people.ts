import type { Rng } from "./random.js";

/** Surnames with their usual Taiwanese (Wade–Giles style) romanisation. */
const SURNAMES: ReadonlyArray<readonly [string, string]> = [
  ["陳", "Chen"],
  ["林", "Lin"],
  ["黃", "Huang"],
  ["張", "Chang"],
  ["李", "Lee"],
  ["王", "Wang"],
  ["吳", "Wu"],
  ["劉", "Liu"],
  ["蔡", "Tsai"],
  ["楊", "Yang"],
  ["許", "Hsu"],
  ["鄭", "Cheng"],
  ["謝", "Hsieh"],
  ["郭", "Kuo"],
  ["洪", "Hung"],
  ["曾", "Tseng"],
  ["邱", "Chiu"],
  ["廖", "Liao"],
  ["賴", "Lai"],
  ["周", "Chou"],
  ["徐", "Hsu"],
  ["蘇", "Su"],
  ["葉", "Yeh"],
  ["莊", "Chuang"],
  ["呂", "Lu"],
  ["江", "Chiang"],
  ["何", "Ho"],
  ["蕭", "Hsiao"],
  ["羅", "Lo"],
  ["高", "Kao"],
  ["潘", "Pan"],
  ["簡", "Chien"],
  ["朱", "Chu"],
  ["鍾", "Chung"],
  ["彭", "Peng"],
  ["游", "Yu"],
];

/** Characters of given names with their romanisation. */
const GIVEN: ReadonlyArray<readonly [string, string]> = [
  ["志", "Chih"],
  ["明", "Ming"],
  ["偉", "Wei"],
  ["家", "Chia"],
  ["俊", "Chun"],
  ["文", "Wen"],
  ["建", "Chien"],
  ["宏", "Hung"],
  ["雅", "Ya"],
  ["婷", "Ting"],
  ["怡", "Yi"],
  ["君", "Chun"],
  ["淑", "Shu"],
  ["芬", "Fen"],
  ["美", "Mei"],
  ["惠", "Hui"],
  ["玲", "Ling"],
  ["佳", "Chia"],
  ["冠", "Kuan"],
  ["宇", "Yu"],
  ["翔", "Hsiang"],
  ["哲", "Che"],
  ["瑋", "Wei"],
  ["彥", "Yen"],
  ["廷", "Ting"],
  ["柏", "Po"],
  ["承", "Cheng"],
  ["信", "Hsin"],
  ["德", "Te"],
  ["國", "Kuo"],
  ["華", "Hua"],
  ["正", "Cheng"],
  ["豪", "Hao"],
  ["仁", "Jen"],
  ["昌", "Chang"],
  ["欣", "Hsin"],
  ["慧", "Hui"],
  ["靜", "Ching"],
  ["秀", "Hsiu"],
  ["麗", "Li"],
  ["萍", "Ping"],
  ["如", "Ju"],
  ["凱", "Kai"],
  ["思", "Szu"],
  ["安", "An"],
  ["育", "Yu"],
  ["嘉", "Chia"],
  ["維", "Wei"],
  ["容", "Jung"],
  ["傑", "Chieh"],
  ["毅", "Yi"],
  ["蓉", "Jung"],
  ["筠", "Yun"],
  ["晴", "Ching"],
];

const WESTERN_GIVEN: ReadonlyArray<readonly [string, string]> = [
  ["大衛", "David"],
  ["麥可", "Michael"],
  ["莎拉", "Sarah"],
  ["艾蜜莉", "Emily"],
  ["詹姆斯", "James"],
  ["珍妮佛", "Jennifer"],
  ["羅伯特", "Robert"],
  ["蘿拉", "Laura"],
  ["丹尼爾", "Daniel"],
  ["安娜", "Anna"],
  ["凱薩琳", "Katherine"],
  ["馬修", "Matthew"],
  ["瑞秋", "Rachel"],
  ["湯瑪斯", "Thomas"],
  ["伊莉莎白", "Elizabeth"],
];

const WESTERN_SURNAMES: ReadonlyArray<readonly [string, string]> = [
  ["史密斯", "Smith"],
  ["強森", "Johnson"],
  ["米勒", "Miller"],
  ["布朗", "Brown"],
  ["戴維斯", "Davis"],
  ["威爾森", "Wilson"],
  ["安德森", "Anderson"],
  ["泰勒", "Taylor"],
  ["摩爾", "Moore"],
  ["馬丁", "Martin"],
  ["克拉克", "Clark"],
  ["羅德里格斯", "Rodriguez"],
  ["金", "Kim"],
  ["帕特爾", "Patel"],
  ["賈西亞", "Garcia"],
];

export interface PersonName {
  /** As written in Chinese (for Western names, a transliteration). */
  zh: string;
  /** English / romanised form, given name first. */
  en: string;
  /** Romanised surname, for building e-mail handles. */
  surnameEn: string;
}

/** A Taiwanese name such as 陳志明 / Chih-Ming Chen. */
export function chineseName(rng: Rng): PersonName {
  const [sz, se] = rng.pick(SURNAMES);
  const [g1z, g1e] = rng.pick(GIVEN);
  if (rng.chance(0.08)) {
    return { zh: sz + g1z, en: `${g1e} ${se}`, surnameEn: se };
  }
  let [g2z, g2e] = rng.pick(GIVEN);
  if (g2z === g1z) [g2z, g2e] = rng.pick(GIVEN);
  return { zh: sz + g1z + g2z, en: `${g1e}-${g2e} ${se}`, surnameEn: se };
}

/** A Western name such as 大衛·米勒 / David Miller. */
export function westernName(rng: Rng): PersonName {
  const [gz, ge] = rng.pick(WESTERN_GIVEN);
  const [sz, se] = rng.pick(WESTERN_SURNAMES);
  return { zh: `${gz}·${sz}`, en: `${ge} ${se}`, surnameEn: se };
}

/** Lower-case e-mail handle, e.g. "chihming.chen". */
export function emailHandle(name: PersonName): string {
  const given = name.en.slice(0, name.en.length - name.surnameEn.length).trim();
  return `${given.replace(/[^A-Za-z]/g, "")}.${name.surnameEn}`.toLowerCase();
}

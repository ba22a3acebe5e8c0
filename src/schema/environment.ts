/** School environment: real-time air quality and daily weather/air summaries (docs/contract.md §5). */
import type { University } from "../generated/prisma/client.js";
import type { DataSource, SchoolDay } from "../domain/environment/index.js";
import type { Context } from "../context.js";
import { AQI_CATEGORIES, DAY_BOUNDARY } from "../domain/environment/index.js";
import { StationKind, StationSource } from "../generated/prisma/enums.js";
import type { History, Snapshot } from "../environment/service.js";
import { builder } from "./builder.js";
import { COUNT, jsonSchema, POSITIVE } from "./json-schema.js";
import { COST } from "./cost.js";
import { checkRange, present } from "./arguments.js";
import { schoolRefWhere } from "./university.js";

const SchoolRef = builder.prismaObject("University", {
  variant: "EnvironmentSchool",
  description: "The school an environment answer is for.",
  fields: (t) => ({
    databaseId: t.exposeInt("id", { ...POSITIVE, description: "Numeric school identifier." }),
    code: t.exposeString("code", { description: "School code." }),
    nameZh: t.exposeString("nameZh", { description: "Chinese name." }),
    shortName: t.exposeString("shortName", { nullable: true, description: "Short name." }),
    region: t.exposeString("region", { nullable: true, description: "Region label." }),
    timezone: t.exposeString("timezone", { description: "IANA time zone in which days are counted." }),
  }),
});

const DataSourceType = builder.objectRef<DataSource>("EnvironmentDataSource").implement({
  description: "A public source whose stations contributed (had weight) in this answer.",
  fields: (t) => ({
    id: t.exposeString("id", {
      ...jsonSchema({ enum: Object.values(StationSource) }),
      description: "Source id: `cwa`, `moenv`, `nws` or `airnow`.",
    }),
    name: t.exposeString("name", { description: "The agency's name." }),
    kind: t.exposeString("kind", { ...jsonSchema({ enum: Object.values(StationKind) }), description: "`weather` or `air`." }),
    stationIds: t.exposeStringList("stationIds", { description: "Ids of its stations that were used." }),
  }),
});

const Realtime = builder.objectRef<Snapshot["realtime"]>("RealtimeAirQuality").implement({
  description: "Air quality now: each air station's latest value within 3 hours, weighted by inverse distance squared.",
  fields: (t) => ({
    aqi: t.exposeInt("aqi", {
      nullable: true,
      description: "AQI under the school's country standard (TW: MOENV, US: EPA); not comparable across countries.",
    }),
    aqiStatus: t.exposeString("aqiStatus", {
      ...jsonSchema({ enum: AQI_CATEGORIES }),
      nullable: true,
      description: "The category of `aqi` in English, such as `Moderate`.",
    }),
    pm25Ugm3: t.exposeFloat("pm25Ugm3", { nullable: true, description: "PM2.5 in µg/m³, one decimal." }),
    observedAtUtc: t.expose("observedAt", { type: "DateTime", nullable: true, description: "Newest observation among the values used." }),
  }),
});

const Day = builder.objectRef<SchoolDay>("EnvironmentDay").implement({
  description:
    "One school-local day, 00:00 to 24:00 in the school's time zone; each value weighted over the three nearest stations having it.",
  fields: (t) => ({
    dateLocal: t.expose("date", { type: "Date", description: "The date in the school's time zone." }),
    dateTaipei: t.expose("date", {
      type: "Date",
      description: "The same date as the local date; kept for compatibility.",
      deprecationReason: "Use dateLocal.",
    }),
    tempCAvg: t.exposeFloat("tempCAvg", { nullable: true, description: "Mean temperature, °C." }),
    tempCMin: t.exposeFloat("tempCMin", { nullable: true, description: "Minimum temperature, °C." }),
    tempCMax: t.exposeFloat("tempCMax", { nullable: true, description: "Maximum temperature, °C." }),
    rhAvg: t.exposeFloat("rhAvg", { nullable: true, description: "Mean relative humidity, %." }),
    precipTotalMm: t.exposeFloat("precipTotalMm", { nullable: true, description: "Rainfall total, mm." }),
    pm25Avg: t.exposeFloat("pm25Avg", { nullable: true, description: "Mean PM2.5, µg/m³." }),
    pm10Avg: t.exposeFloat("pm10Avg", { nullable: true, description: "Mean PM10, µg/m³." }),
    aqiAvg: t.exposeInt("aqiAvg", { nullable: true, description: "Mean of the stations' reported AQI." }),
  }),
});

type SnapshotShape = Snapshot & { school: University };
type HistoryShape = History & { school: University };

const common = {
  dayBoundary: `Always \`${DAY_BOUNDARY}\`: days are cut at the school's midnight.`,
  dataSources: "The sources whose stations were used in this answer.",
};

const SchoolEnvironment = builder.objectRef<SnapshotShape>("SchoolEnvironment").implement({
  description: "The latest environment snapshot of one school.",
  fields: (t) => ({
    school: t.field({ type: SchoolRef, description: "The school.", resolve: (p) => p.school }),
    realtime: t.field({ type: Realtime, description: "Air quality now.", resolve: (p) => p.realtime }),
    daily: t.field({
      type: Day,
      description: "Today so far, in the school's time zone (values null before any observation).",
      resolve: (p) => p.daily,
    }),
    dayBoundary: t.string({ ...jsonSchema({ const: DAY_BOUNDARY }), description: common.dayBoundary, resolve: () => DAY_BOUNDARY }),
    dataSources: t.field({ type: [DataSourceType], description: common.dataSources, resolve: (p) => p.dataSources }),
  }),
});

const EnvironmentHistory = builder.objectRef<HistoryShape>("EnvironmentHistory").implement({
  description: "Daily environment summaries of one school.",
  fields: (t) => ({
    school: t.field({ type: SchoolRef, description: "The school.", resolve: (p) => p.school }),
    days: t.exposeInt("days", { ...POSITIVE, description: "How many local dates, ending today, were asked for." }),
    dayBoundary: t.string({ ...jsonSchema({ const: DAY_BOUNDARY }), description: common.dayBoundary, resolve: () => DAY_BOUNDARY }),
    dataSources: t.field({ type: [DataSourceType], description: common.dataSources, resolve: (p) => p.dataSources }),
    daily: t.field({ type: [Day], description: "One entry per date with data, oldest first.", resolve: (p) => p.daily }),
  }),
});

const EnvironmentSnapshotList = builder.objectRef<{ total: number; nodes: SnapshotShape[] }>("EnvironmentSnapshotList").implement({
  description: "Snapshots of several schools, by school id.",
  fields: (t) => ({
    totalCount: t.exposeInt("total", { ...COUNT, description: "Number of matching schools before `limit`." }),
    nodes: t.field({ type: [SchoolEnvironment], description: "The snapshots.", resolve: (p) => p.nodes }),
  }),
});

const DAYS = "How many local dates, ending today, from 1 to 90.";

/** One school's history over `days` dates (out-of-range days are refused when it runs). */
const historyCost = (days: number) => COST.historyDay * Math.min(90, Math.max(0, days));

async function snapshotOf(school: University, ctx: Context): Promise<SnapshotShape> {
  return { ...(await ctx.loaders.snapshot.load(school)), school };
}

async function historyOf(school: University, days: number, ctx: Context): Promise<HistoryShape> {
  checkRange("days", days, 1, 90);
  return { ...(await ctx.loaders.history.load({ school, days })), school };
}

builder.prismaObjectFields("University", (t) => ({
  environment: t.field({
    type: SchoolEnvironment,
    description: "The latest environment snapshot of this school.",
    complexity: COST.snapshotInList,
    resolve: (school, _args, ctx) => snapshotOf(school, ctx),
  }),
  environmentHistory: t.field({
    type: EnvironmentHistory,
    description: "Daily environment summaries of this school.",
    args: { days: t.arg.int({ defaultValue: 30, required: true, description: DAYS }) },
    complexity: (args) => historyCost(args.days),
    resolve: (school, args, ctx) => historyOf(school, args.days, ctx),
  }),
}));

const REF = "Numeric school id, or school code in any case.";

builder.queryFields((t) => ({
  schoolEnvironment: t.field({
    type: SchoolEnvironment,
    nullable: true,
    description: "The latest environment snapshot of one school; null when there is no such school.",
    args: { ref: t.arg.string({ required: true, description: REF }) },
    complexity: COST.row + COST.snapshotAlone,
    resolve: async (_root, args, ctx) => {
      const school = await ctx.prisma.university.findUnique({ where: schoolRefWhere(args.ref) });
      return school ? snapshotOf(school, ctx) : null;
    },
  }),
  schoolEnvironmentHistory: t.field({
    type: EnvironmentHistory,
    nullable: true,
    description: "Daily environment summaries of one school; null when there is no such school.",
    args: {
      ref: t.arg.string({ required: true, description: REF }),
      days: t.arg.int({ defaultValue: 30, required: true, description: DAYS }),
    },
    complexity: (args) => COST.row + COST.historyAlone + historyCost(args.days),
    resolve: async (_root, args, ctx) => {
      checkRange("days", args.days, 1, 90);
      const school = await ctx.prisma.university.findUnique({ where: schoolRefWhere(args.ref) });
      return school ? historyOf(school, args.days, ctx) : null;
    },
  }),
  environmentSnapshot: t.field({
    type: EnvironmentSnapshotList,
    description: "Latest snapshots of several schools, by school id.",
    args: {
      region: t.arg.string({ description: "Only schools whose region is exactly this." }),
      limit: t.arg.int({ defaultValue: 30, required: true, description: "At most this many schools, from 1 to 100." }),
    },
    complexity: (args) => {
      const schools = Math.min(100, Math.max(0, args.limit));
      return { field: COST.list + COST.snapshotAlone + COST.snapshotInList * schools, multiplier: schools };
    },
    resolve: async (_root, args, ctx) => {
      checkRange("limit", args.limit, 1, 100);
      const region = present(args.region);
      const where = region === undefined ? {} : { region };
      const [total, schools] = await Promise.all([
        ctx.prisma.university.count({ where }),
        ctx.prisma.university.findMany({ where, orderBy: { id: "asc" }, take: args.limit }),
      ]);
      // Loaded in one tick, so the DataLoader computes all of them together.
      return { total, nodes: await Promise.all(schools.map((school) => snapshotOf(school, ctx))) };
    },
  }),
}));

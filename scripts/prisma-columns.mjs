#!/usr/bin/env node
// A Prisma generator (`generator columns` in prisma/schema.prisma): writes,
// for every model, each stored column's name with the validation rule of
// src/import/rules.ts that its type implies. The importer's record schemas
// (src/import/records.ts) are built from these, so a plain column added to
// the Prisma schema is read from the platform export with no other edit.
// It also writes each model's table and all its columns by field name, from
// which the serving role's grants are derived (src/db/grants.ts).
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import helper from "@prisma/generator-helper";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/** The specifier that imports `target` (a .ts file of src/) from a module in `dir`. */
function specifier(dir, target) {
  const path = relative(dir, join(root, target)).replaceAll("\\", "/").replace(/\.ts$/, ".js");
  return path.startsWith(".") ? path : `./${path}`;
}

/** The rule of one field, as TypeScript source, or null for a field that is not a stored column of its own. */
function ruleOf(model, field) {
  if (field.kind === "object") return null;
  // A value the database makes (autoincrement(), now()) is never imported.
  if (field.hasDefaultValue && typeof field.default === "object" && field.default !== null && !Array.isArray(field.default)) return null;
  const where = `${model.name}.${field.name}`;
  if (field.isList && field.kind === "scalar" && field.type === "Int") return "rule.ints";
  if (field.isList && !(field.kind === "scalar" && field.type === "String")) {
    throw new Error(`prisma-columns: ${where}: no import rule for a list of ${field.type}; add one to src/import/rules.ts and here`);
  }
  if (field.kind === "scalar" && field.type === "String") {
    if (field.isList) return "rule.texts";
    if (!field.isRequired) return "rule.optionalText";
  }
  if (field.kind === "scalar" && field.type === "Json") return "rule.json";
  let base;
  if (field.kind === "enum") base = `rule.oneOf(enums.${field.type})`;
  else {
    base = {
      String: "rule.text",
      Int: "rule.int",
      Float: "rule.float",
      Boolean: "rule.flag",
      DateTime: field.nativeType?.[0] === "Date" ? "rule.date" : "rule.instant",
    }[field.type];
    if (!base) throw new Error(`prisma-columns: ${where}: no import rule for ${field.type}; add one to src/import/rules.ts and here`);
  }
  if (field.hasDefaultValue) return `rule.orDefault(${base}, ${JSON.stringify(field.default)})`;
  return field.isRequired ? base : `rule.optional(${base})`;
}

/** Each model's table, its stored columns by field name, and the column a sequence numbers (autoincrement()), as TypeScript source. */
function tables(models) {
  return models.map((model) => {
    const stored = model.fields.filter((field) => field.kind !== "object");
    const columns = stored.map((field) => `${field.name}: ${JSON.stringify(field.dbName ?? field.name)}`).join(", ");
    const serial = stored.find((field) => field.default?.name === "autoincrement");
    const numbered = serial ? JSON.stringify(serial.dbName ?? serial.name) : "null";
    return `  ${model.name}: { table: ${JSON.stringify(model.dbName ?? model.name)}, columns: { ${columns} }, serial: ${numbered} },`;
  });
}

function render(models, dir) {
  let usesEnums = false;
  const blocks = models.map((model) => {
    const lines = [];
    for (const field of model.fields) {
      const rule = ruleOf(model, field);
      if (rule === null) continue;
      usesEnums ||= rule.includes("enums.");
      lines.push(`    ${field.dbName ?? field.name}: ${rule},`);
    }
    return `  /** Table \`${model.dbName ?? model.name}\`. */\n  ${model.name}: {\n${lines.join("\n")}\n  },`;
  });
  return [
    "// Generated from prisma/schema.prisma by scripts/prisma-columns.mjs: do not edit.",
    `import * as rule from "${specifier(dir, "src/import/rules.ts")}";`,
    ...(usesEnums ? [`import * as enums from "${specifier(dir, "src/generated/prisma/enums.ts")}";`] : []),
    "",
    "/** Each model's stored columns, by column name, with the rule of src/import/rules.ts its type implies. */",
    "export const COLUMNS = {",
    ...blocks,
    "};",
    "",
    "/** Each model's table, every stored column by field name, and the column a sequence numbers (autoincrement()). */",
    "export const TABLES = {",
    ...tables(models),
    "} as const;",
    "",
  ].join("\n");
}

helper.generatorHandler({
  onManifest: () => ({ prettyName: "the import rule of each column", defaultOutput: "../src/generated/columns.ts" }),
  onGenerate: async (options) => {
    const output = options.generator.output?.value;
    if (!output) throw new Error("prisma-columns: the generator needs an output file");
    mkdirSync(dirname(output), { recursive: true });
    writeFileSync(output, render(options.dmmf.datamodel.models, dirname(output)));
  },
});

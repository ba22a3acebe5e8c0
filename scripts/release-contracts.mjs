// `npm run contracts:release`: publishes the current GraphQL schema and
// OpenAPI document as the released ones (graphql/schema.released.graphql,
// rest/openapi.released.json), under the version of CHANGELOG.md's newest
// section, which must be newer than the version released before. From then
// on `npm test` (test/contracts) compares every change with them.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const at = (path) => join(root, path);
const HEADER = /^# Released as (\d+\.\d+\.\d+) by npm run contracts:release\. Do not edit\.\n/;

if (process.argv.length > 2) {
  process.stderr.write(
    "usage: npm run contracts:release\n\nCopies graphql/schema.graphql and rest/openapi.json over the released ones, as the version of CHANGELOG.md's newest section.\n",
  );
  process.exit(process.argv.includes("--help") || process.argv.includes("-h") ? 0 : 2);
}
const version = /^## (\d+\.\d+\.\d+)\b/m.exec(readFileSync(at("CHANGELOG.md"), "utf8"))?.[1];
if (!version) {
  process.stderr.write("contracts:release: CHANGELOG.md has no `## X.Y.Z` section to release\n");
  process.exit(1);
}
const releasedFile = at("graphql/schema.released.graphql");
const before = existsSync(releasedFile) ? HEADER.exec(readFileSync(releasedFile, "utf8"))?.[1] : undefined;
const newer = (a, b) => {
  const [x, y] = [a.split(".").map(Number), b.split(".").map(Number)];
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i] > y[i];
  return false;
};
if (before && !newer(version, before)) {
  process.stderr.write(`contracts:release: ${before} is released already; add a newer section to CHANGELOG.md first\n`);
  process.exit(1);
}
writeFileSync(
  releasedFile,
  `# Released as ${version} by npm run contracts:release. Do not edit.\n${readFileSync(at("graphql/schema.graphql"), "utf8")}`,
);
writeFileSync(at("rest/openapi.released.json"), readFileSync(at("rest/openapi.json"), "utf8"));
process.stdout.write(`released the GraphQL schema and the OpenAPI document as ${version}\n`);

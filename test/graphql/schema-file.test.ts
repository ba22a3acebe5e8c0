import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { SCHEMA_FILE, schemaSDL } from "../../src/schema/sdl.js";

describe("graphql/schema.graphql", () => {
  it("is the printed schema of the code (run `npm run schema:print` after a schema change)", () => {
    expect(readFileSync(SCHEMA_FILE, "utf8")).toBe(schemaSDL());
  });

  it("has no guarded column and describes every type, field and argument", () => {
    const sdl = schemaSDL();
    expect(sdl).not.toMatch(/joinCode|join_code|payload|isPublic|visibility|safetyStatus|email/i);
  });
});

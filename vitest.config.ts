import { defineConfig } from "vitest/config";

export default defineConfig({
  // graphql ships both CJS and ESM builds; Pothos and yoga must see the same
  // one as our code, or `instanceof` checks across them fail.
  resolve: { alias: { graphql: "graphql/index.js" } },
  test: {
    include: ["test/**/*.test.ts"],
    // Private PostgreSQL and Redis servers for the run (unless TEST_DATABASE_URL / TEST_REDIS_URL).
    globalSetup: ["./test/support/global-setup.ts"],
    reporters: ["default", "./test/support/summary-reporter.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    // Two cores: two files at a time keeps the PostgreSQL-backed files from starving.
    maxWorkers: 2,
  },
});

import { defineConfig, type TestProjectInlineConfiguration } from "vitest/config";

/**
 * Run after the suite, beside the topology files: its cases install the whole
 * project and start it three times (test/newcomer.test.ts), which would slow
 * the suite's timed cases. Vitest starts a group's projects in the order of
 * their names, so this file takes one of the two workers first and holds it
 * for about as long as the three topology files take, one after another, on
 * the other (52-57 s against 40-51 s, two runs). Run after them instead, it
 * added its whole length to the run: 370 s against 331-333.
 */
const LAST = ["test/newcomer.test.ts"];

/**
 * Run each in a process of its own, beside the suite: a file that measures its
 * worker's heap, whose full collections (and the code it runs) cost two to
 * four times as much in a worker that has run other files before it.
 */
const OWN_PROCESS = ["test/import/streaming.test.ts"];

/**
 * Run after the suite, beside the newcomer's file only (see {@link LAST}):
 * each starts a topology of its own (a primary and replicas, Redis and
 * Sentinel, several gateway processes), whose bursts would otherwise slow the
 * timed cases of the files beside it. Their own timed cases allow for a
 * machine as busy as the newcomer's install makes it.
 */
const TOPOLOGY = ["test/db/topology.test.ts", "test/db/replicas.test.ts", "test/limits/sentinel.test.ts"];

/**
 * Each project's global setup: the run's temporary folder first (a tmpfs when
 * there is one with room, test/support/temp-root.ts), then the servers, the
 * templates and the build (test/support/global-setup.ts).
 */
const TEMP_ROOT = "./test/support/temp-root.ts";
const RUN = [TEMP_ROOT, "./test/support/global-setup.ts"];

/** What every project shares. */
const shared: TestProjectInlineConfiguration["test"] = {
  testTimeout: 60_000,
  hookTimeout: 120_000,
  pool: "forks",
  // Two cores: two files at a time keeps the PostgreSQL-backed files from starving.
  maxWorkers: 2,
  // Each worker runs file after file in one process, importing the schema, the
  // Prisma client and the rest once, not once a file (that was a quarter of the
  // suite's CPU). A file that mocks a module undoes it when done (test/import/columns.test.ts).
  isolate: false,
  // With TEST_CPU_LOG, each file's CPU seconds, its own and its processes' (and nothing without it).
  setupFiles: ["./test/support/cpu-per-file.ts"],
};

export default defineConfig({
  // graphql ships both CJS and ESM builds; Pothos and yoga must see the same
  // one as our code, or `instanceof` checks across them fail.
  resolve: { alias: { graphql: "graphql/index.js" } },
  test: {
    reporters: ["default", "./test/support/summary-reporter.ts"],
    projects: [
      {
        extends: true,
        test: {
          ...shared,
          name: "suite",
          include: ["test/**/*.test.ts"],
          exclude: [...LAST, ...TOPOLOGY, ...OWN_PROCESS],
          // Private PostgreSQL and Redis servers for the run (unless TEST_DATABASE_URL / TEST_REDIS_URL).
          globalSetup: RUN,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          ...shared,
          name: "own process",
          include: OWN_PROCESS,
          isolate: true,
          globalSetup: RUN,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          ...shared,
          name: "topology",
          include: TOPOLOGY,
          globalSetup: RUN,
          // With the newcomer's file: a group's projects share one number of workers.
          sequence: { groupOrder: 1 },
        },
      },
      // Needs no test server: each case's gateway has its own embedded one.
      { extends: true, test: { ...shared, name: "newcomer", include: LAST, globalSetup: [TEMP_ROOT], sequence: { groupOrder: 1 } } },
    ],
  },
});

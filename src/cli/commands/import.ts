/**
 * `npm run import -- <file|->`: imports a platform export (docs/contract.md §6) into
 * the configured database, migrating it first. Exit 0 on success, 1 when the
 * export is refused or unreadable (nothing changed), 2 on a usage error.
 */
import { importExport, type ImportSummary } from "../../import/apply.js";
import type { Command, CommandSpec } from "../command.js";

const USAGE = "usage: npm run import -- <export.json | ->  (- reads standard input)";
const n = (value: number) => value.toLocaleString("en-US");

function summary(s: ImportSummary): string {
  return (
    `imported ${n(s.universities)} universities, ${n(s.courses)} courses, ${n(s.papers)} papers, ` +
    `${n(s.conferences)} conferences, ${n(s.hubPacks)} hub packs (${n(s.packVersions)} versions), ` +
    `${n(s.stations)} stations, ${n(s.observations)} observations`
  );
}

const usable = (args: string[]) => args.length === 1 && args[0] !== "" && args[0] !== "--help" && args[0] !== "-h";

const importCli: Command = async (args, io, withDatabase) => {
  if (!usable(args)) {
    io.err(`${USAGE}\n`);
    return 2;
  }
  const { input, readError } = await io.openInput(args[0]!);
  try {
    const result = await withDatabase(async (db, applied): Promise<ImportSummary> => {
      for (const name of applied) io.err(`applied migration ${name}\n`);
      try {
        return await importExport(db, input, {
          onProgress: io.tty ? (p) => io.err(`\r${p.section}: ${n(p.records)}\x1b[K`) : undefined,
        }).catch((error: unknown) => {
          throw readError() ?? error;
        });
      } finally {
        if (io.tty) io.err("\r\x1b[K");
      }
    });
    io.out(`${summary(result)}\n`);
    return 0;
  } finally {
    input.destroy();
  }
};

export const importCommand: CommandSpec = {
  name: "import",
  prefix: "import failed",
  run: importCli,
  inputOf: (args) => (usable(args) ? args[0] : undefined),
};

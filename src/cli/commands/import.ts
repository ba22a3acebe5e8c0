/**
 * `npm run import -- <file|->`: imports a platform export (docs/contract.md §6) into
 * the configured database, migrating it first. Exit 0 on success, 1 when the
 * export is refused or unreadable (nothing changed), 2 on a usage error.
 */
import { importExport, type ImportSummary } from "../../import/apply.js";
import { Tracker } from "../../observe/progress.js";
import { readArgs } from "../args.js";
import { LINE } from "../lines/import.js";
import { answerUsage, type Command, type CommandSpec } from "../command.js";

const n = (value: number) => value.toLocaleString("en-US");

function summary(s: ImportSummary, seconds: number): string {
  return (
    `imported ${n(s.universities)} universities, ${n(s.courses)} courses, ${n(s.papers)} papers, ` +
    `${n(s.conferences)} conferences, ${n(s.hubPacks)} hub packs (${n(s.packVersions)} versions), ` +
    `${n(s.stations)} stations, ${n(s.observations)} observations in ${seconds.toFixed(1)} s`
  );
}

const importCli: Command = async (args, io, withDatabase) => {
  const read = readArgs(LINE, args);
  if (!read.ok) return answerUsage(io, read);
  const path = read.positionals[0]!;
  if (path === "") return answerUsage(io, { ok: false, code: 2, stream: "err", text: `import: the file name is empty\n${LINE.usage}\n` });
  const { input, size, readError } = await io.openInput(path);
  const progress = new Tracker("import", io.progressSink());
  try {
    const result = await withDatabase(async (db, applied): Promise<ImportSummary> => {
      for (const name of applied) io.err(`applied migration ${name}\n`);
      return await importExport(db, input, { progress, size }).catch((error: unknown) => {
        throw readError() ?? error;
      });
    }, progress);
    await progress.end();
    io.out(`${summary(result, progress.elapsedSeconds())}\n`);
    return 0;
  } catch (error) {
    await progress.end("failed");
    throw error;
  } finally {
    input.destroy();
  }
};

export const importCommand: CommandSpec = {
  name: "import",
  prefix: "import failed",
  run: importCli,
};

/** The commands that open the database, which a gateway owning it runs for the command line. */
import { backupCommand } from "./backup.js";
import { importCommand } from "./import.js";
import { ingestCommand } from "./ingest.js";
import { keysCommand } from "./keys.js";
import { migrateCommand } from "./migrate.js";

export const DATABASE_COMMANDS = [keysCommand, importCommand, ingestCommand, migrateCommand, backupCommand] as const;

// Prisma CLI configuration. The gateway applies prisma/migrations itself
// (src/db/migrate.ts); the CLI is only used for `prisma generate`.
import { defineConfig } from "prisma/config";

export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
});

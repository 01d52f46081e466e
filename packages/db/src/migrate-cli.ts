// node src/migrate-cli.ts deploy     apply pending migrations to $DATABASE_URL
// node src/migrate-cli.ts new NAME   write prisma/migrations/<timestamp>_NAME from schema.prisma
// node src/migrate-cli.ts diff       print the SQL schema.prisma needs beyond the migrations
// node src/migrate-cli.ts drift      print the SQL schema.prisma needs beyond $DATABASE_URL's tables
// (diff and drift exit 2 when there is a difference)
import { DEFAULT_DATABASE_URL } from "./database-url.ts";
import { applyMigrations, createMigration, diffDatabaseAgainstSchema, diffMigrationsAgainstSchema } from "./migrate.ts";

const USAGE = "usage: migrate-cli.ts deploy | new NAME | diff | drift";

async function main(argv: string[]): Promise<number> {
  const url = process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL;
  const [command, name] = argv;
  switch (command) {
    case "deploy": {
      const applied = await applyMigrations(url);
      console.log(applied.length ? `applied ${applied.length} migration(s): ${applied.join(", ")}` : "database is up to date");
      return 0;
    }
    case "new": {
      if (!name) return fail(USAGE);
      const folder = await createMigration(name, url);
      console.log(folder ? `created prisma/migrations/${folder}/migration.sql` : "no changes: schema.prisma matches the migrations");
      return 0;
    }
    case "diff":
    case "drift": {
      const sql = command === "diff" ? await diffMigrationsAgainstSchema(url) : await diffDatabaseAgainstSchema(url);
      console.log(sql || "-- no changes");
      return sql ? 2 : 0;
    }
    default:
      return fail(USAGE);
  }
}

function fail(message: string): number {
  console.error(message);
  return 1;
}

// Exits as soon as the work is done: the WebAssembly schema engine leaves a timer of about 10 s
// behind, which would otherwise hold every run (and each control-plane pod's init container).
main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? (err.stack ?? err.message) : err);
    process.exit(1);
  },
);

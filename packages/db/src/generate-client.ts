// Regenerates the committed Prisma client in src/generated from prisma/schema.prisma, offline:
//   node src/generate-client.ts           write src/generated
//   node src/generate-client.ts --check   exit 1 if src/generated is not what the schema generates
// `prisma generate` first tries to download a native schema engine it does not use for generating;
// pointing PRISMA_SCHEMA_ENGINE_BINARY at any existing file skips that download.
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const PACKAGE_DIR = fileURLToPath(new URL("..", import.meta.url));
const GENERATED_DIR = join(PACKAGE_DIR, "src", "generated");
const SCHEMA_FILE = join(PACKAGE_DIR, "prisma", "schema.prisma");

/** Runs `prisma generate` for a schema file; its generator output is relative to that file. */
async function runPrismaGenerate(schemaFile: string, cwd: string): Promise<void> {
  const cli = createRequire(join(PACKAGE_DIR, "package.json")).resolve("prisma/build/index.js");
  await promisify(execFile)(process.execPath, [cli, "generate", "--schema", schemaFile], {
    cwd,
    env: { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: process.execPath, PRISMA_HIDE_UPDATE_MESSAGE: "1", CHECKPOINT_DISABLE: "1" },
  });
}

export async function generateClient(): Promise<void> {
  await rm(GENERATED_DIR, { recursive: true, force: true }); // drop files of removed models
  await runPrismaGenerate(SCHEMA_FILE, PACKAGE_DIR);
}

async function listFiles(dir: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    files.set(relative(dir, path), await readFile(path, "utf8"));
  }
  return files;
}

/** Generates into a temporary folder and lists the files that differ from src/generated. */
export async function staleGeneratedFiles(): Promise<string[]> {
  const tmp = await mkdtemp(join(tmpdir(), "gw-prisma-generate-"));
  try {
    await mkdir(join(tmp, "prisma"));
    const schemaFile = join(tmp, "prisma", "schema.prisma");
    await writeFile(schemaFile, await readFile(SCHEMA_FILE, "utf8"));
    await runPrismaGenerate(schemaFile, tmp);
    const [fresh, committed] = await Promise.all([listFiles(join(tmp, "src", "generated")), listFiles(GENERATED_DIR)]);
    const names = new Set([...fresh.keys(), ...committed.keys()]);
    return [...names].filter((name) => fresh.get(name) !== committed.get(name)).sort();
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.includes("--check")) {
    const stale = await staleGeneratedFiles();
    if (stale.length) {
      console.error(`src/generated is out of date (${stale.join(", ")}): run pnpm --filter @gateway/db generate`);
      process.exitCode = 1;
    } else console.log("src/generated is up to date");
  } else {
    await generateClient();
    console.log("generated src/generated");
  }
}

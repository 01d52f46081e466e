// Prisma's schema engine compiled to WebAssembly (@prisma/schema-engine-wasm), driven over
// @prisma/adapter-pg. Used instead of the native engine, which cannot be downloaded here.
import { randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { PrismaPg } from "@prisma/adapter-pg";
import {
  bindMigrationAwareSqlAdapterFactory,
  type SqlDriverAdapter,
  type SqlMigrationAwareDriverAdapterFactory,
} from "@prisma/driver-adapter-utils";
import type { SchemaEngine } from "@prisma/schema-engine-wasm";
import { poolConfigFor, quoteIdent, withAdminClient } from "./database-url.ts";

type EngineModule = typeof import("@prisma/schema-engine-wasm");
type WasmExports = Record<string, unknown>;
type WasmApi = { instantiate(bytes: Uint8Array, imports: object): Promise<{ instance: { exports: WasmExports } }> };

let loading: Promise<EngineModule> | undefined;

/** Instantiates the wasm once per process (the package's own entry does not load it on Node). */
function loadEngineModule(): Promise<EngineModule> {
  loading ??= (async () => {
    const bgPath = createRequire(import.meta.url).resolve("@prisma/schema-engine-wasm/schema_engine_bg");
    const bg = (await import(pathToFileURL(bgPath).href)) as EngineModule & { __wbg_set_wasm(exports: WasmExports): void };
    const bytes = await readFile(join(dirname(bgPath), "schema_engine_bg.wasm"));
    const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
    const { instance } = await wasm.instantiate(bytes, { "./schema_engine_bg.js": bg });
    bg.__wbg_set_wasm(instance.exports);
    (instance.exports.__wbindgen_start as () => void)();
    return bg;
  })();
  return loading;
}

const PG_CHAR_OID = 18;
const PG_TEXT_OID = 25;

type PerformIO = (query: unknown) => Promise<{ fields: { dataTypeID: number }[] }>;

/**
 * The engine's introspection reads catalog columns of PostgreSQL's internal `"char"` type (e.g.
 * `pg_constraint.confdeltype`), which @prisma/adapter-pg rejects as an unsupported type as soon as a
 * schema has foreign keys. pg hands those values over as one-character strings: report them as text.
 */
function readCharAsText(queryable: object): void {
  const target = queryable as { performIO?: PerformIO; startTransaction?: (...args: unknown[]) => Promise<object> };
  const performIO = target.performIO?.bind(queryable);
  if (!performIO) throw new Error("@prisma/adapter-pg changed: performIO is gone (see readCharAsText)");
  target.performIO = async (query) => {
    const result = await performIO(query);
    for (const field of result?.fields ?? []) if (field.dataTypeID === PG_CHAR_OID) field.dataTypeID = PG_TEXT_OID;
    return result;
  };
  const startTransaction = target.startTransaction?.bind(queryable);
  if (startTransaction) {
    target.startTransaction = async (...args) => {
      const tx = await startTransaction(...args);
      readCharAsText(tx);
      return tx;
    };
  }
}

/**
 * A PrismaPg factory for the engine whose shadow databases really are separate databases (stock
 * PrismaPg passes `{ connectionString, database }` to pg, where the connection string wins) and are
 * dropped afterwards; it also disposes every pool it opened (freeing the engine does not).
 */
function engineAdapterFactory(url: string): SqlMigrationAwareDriverAdapterFactory & { disposeAll(): Promise<void> } {
  const main = new PrismaPg(poolConfigFor(url));
  const open = new Set<SqlDriverAdapter>();

  const track = (adapter: SqlDriverAdapter, afterDispose?: () => Promise<unknown>): SqlDriverAdapter => {
    readCharAsText(adapter);
    const dispose = adapter.dispose.bind(adapter);
    let done: Promise<void> | undefined;
    open.add(adapter);
    adapter.dispose = () => {
      open.delete(adapter);
      done ??= dispose().finally(afterDispose);
      return done;
    };
    return adapter;
  };

  return {
    provider: main.provider,
    adapterName: main.adapterName,
    connect: async () => track(await main.connect()),
    connectToShadowDb: async () => {
      const name = `prisma_shadow_${randomUUID().replaceAll("-", "")}`;
      await withAdminClient(url, (c) => c.query(`CREATE DATABASE ${quoteIdent(name)}`));
      const drop = () => withAdminClient(url, (c) => c.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`));
      try {
        return track(await new PrismaPg(poolConfigFor(url, name)).connect(), drop);
      } catch (err) {
        await drop();
        throw err;
      }
    },
    disposeAll: async () => {
      await Promise.allSettled([...open].map((a) => a.dispose()));
    },
  };
}

export type EngineLog = (line: string) => void;

/** Runs `fn` with a schema engine connected to `url` (and loaded with `schema`), then frees it. */
export async function withSchemaEngine<T>(
  url: string,
  schema: { path: string; content: string } | undefined,
  fn: (engine: SchemaEngine) => Promise<T>,
  log: EngineLog = () => {},
): Promise<T> {
  const mod = await loadEngineModule();
  const factory = engineAdapterFactory(url);
  try {
    const engine = await mod.SchemaEngine.new(
      { datamodels: schema ? [[schema.path, schema.content]] : undefined },
      (line: string) => log(line),
      bindMigrationAwareSqlAdapterFactory(factory),
    );
    try {
      return await fn(engine);
    } finally {
      engine.free();
    }
  } finally {
    await factory.disposeAll();
  }
}

import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { DroppedParams } from "../core/drops.ts";
import { emptyRequest } from "../core/neutral-request.ts";
import { SHAPE_LIST, pairTranslation, translationBetween, type ClientSide, type ShapeEntry, type UpstreamSide } from "./index.ts";

const here = dirname(fileURLToPath(import.meta.url));
const src = resolve(here, "..");

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return files(path);
    return name.endsWith(".ts") && !name.endsWith(".test.ts") ? [path] : [];
  });
}

/** Where a file's relative value imports land, as paths under src/ (`import type` carries no code: the registry's types may be named anywhere). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  return [...text.matchAll(/^(?:import|export)(?!\s+type\s)[^;]*?from\s+"(\.[^"]+)"/gms)].map((match) => relative(src, resolve(dirname(file), match[1]!)));
}

/** Every shape folder (`__fixtures__` and `__goldens__` hold the tests' recorded payloads and harness, not a shape). */
const LISTED_FOLDERS = readdirSync(here).filter((name) => !name.startsWith("__") && statSync(join(here, name)).isDirectory());

/**
 * Imports of a shape's reader or writer from outside shapes/ that are known and meant: a Gemini
 * countTokens on a model of another shape is counted by the route from the Gemini reader's text.
 */
const READER_WRITER_IMPORTS_ALLOWED = new Set(["routes/gemini-count-tokens.ts -> shapes/gemini/reader/request.ts"]);

describe("the layout rule (neutral-core.md section 4)", () => {
  it("core/ imports no shape", () => {
    const offending = files(join(src, "core")).flatMap((file) => importsOf(file).filter((target) => target.startsWith("shapes/")).map((target) => `${relative(src, file)} -> ${target}`));
    expect(offending).toEqual([]);
  });

  it("no file of a shape folder imports another shape's folder", () => {
    const offending = LISTED_FOLDERS.flatMap((folder) =>
      files(join(src, "shapes", folder)).flatMap((file) =>
        importsOf(file)
          .filter((target) => target.startsWith("shapes/") && !target.startsWith(`shapes/${folder}/`))
          .map((target) => `${relative(src, file)} -> ${target}`),
      ),
    );
    expect(offending).toEqual([]);
  });

  it("the direction folders are gone: src/translation does not come back (a pair is an entry of SHAPE_LIST)", () => {
    expect(existsSync(join(src, "translation"))).toBe(false);
  });

  it("outside shapes/, no file reaches into a shape's reader or writer: pairs come from shapes/index.ts", () => {
    const offending = files(src)
      .filter((file) => !relative(src, file).startsWith("shapes/"))
      .flatMap((file) => importsOf(file).filter((target) => /^shapes\/[^/]+\/(reader|writer)\//.test(target)).map((target) => `${relative(src, file)} -> ${target}`))
      .filter((edge) => !READER_WRITER_IMPORTS_ALLOWED.has(edge));
    expect(offending).toEqual([]);
  });
});

describe("the one list of shapes", () => {
  it("pairs every client side with every other shape's upstream side, named client-to-upstream", () => {
    const names = SHAPE_LIST.flatMap((client) => SHAPE_LIST.filter((upstream) => upstream !== client && client.client && upstream.upstream).map((upstream) => `${client.id}-to-${upstream.id}`));
    expect(names.sort()).toEqual([
      "chat-to-converse", "chat-to-gemini", "chat-to-messages", "gemini-to-chat", "gemini-to-converse", "gemini-to-messages", "messages-to-chat", "messages-to-converse", "messages-to-gemini", "responses-to-chat", "responses-to-converse", "responses-to-gemini", "responses-to-messages",
    ]);
    for (const name of names) {
      const [client, upstream] = name.split("-to-") as [ShapeEntry["id"], ShapeEntry["id"]];
      const translation = translationBetween(client, upstream);
      expect(translation.name).toBe(name);
      expect(translation.upstreamWire.shape).toBe(SHAPE_LIST.find((entry) => entry.id === upstream)!.upstream!.kind);
    }
  });

  it("a new shape is one entry: its reader feeds an existing writer, decided by that writer's table, the route's model and stream winning", () => {
    const chat = SHAPE_LIST.find((entry) => entry.id === "chat") as ShapeEntry & { upstream: UpstreamSide };
    const seen: string[] = [];
    const client = {
      id: "gemini",
      client: {
        ...chat.client!,
        endpoint: "gemini.generate_content",
        readRequest: (body, context) => {
          seen.push(context.accepts.upstream);
          context.drops.drop("generationConfig.topK", "a passenger");
          const request = emptyRequest(body.model, false);
          request.turns.push({ role: "user", parts: [{ type: "text", text: String(body.text), path: "contents[0].parts[0].text" }], plain: true, path: "contents[0]" });
          return request;
        },
      } satisfies ClientSide,
    } as ShapeEntry & { client: ClientSide };
    const dropped = new DroppedParams(false);
    const upstream = pairTranslation(client, chat).request({ body: { model: "from-body", text: "Hi" }, model: "from-route", stream: true, outputBound: 64 }, dropped);
    expect(seen).toEqual([chat.upstream.accepts.upstream]);
    expect(upstream.body).toEqual({ model: "from-route", messages: [{ role: "user", content: "Hi" }], max_completion_tokens: 64, stream: true });
    expect(dropped.paths).toEqual(["generationConfig.topK"]);
  });
});

import { readFile } from "node:fs/promises";
import { createConfig, lintFromString } from "@redocly/openapi-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { expectError } from "./vendor-api-auth-checks.ts";
import { startVendorApiFixture, type VendorApiFixture } from "./vendor-api-fixture.ts";

let fixture: VendorApiFixture;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the document is arbitrary JSON
let document: any;
beforeAll(async () => {
  fixture = await startVendorApiFixture();
  document = (await fixture.call("GET", "/api/openapi.json", { token: null })).body;
}, 60_000);
afterAll(async () => {
  await fixture?.close();
});

const METHODS = new Set(["get", "put", "post", "delete", "patch", "head", "options", "trace"]);

/** `GET /v1/models/{id}` for every operation of the document. */
function operationsOf(paths: Record<string, Record<string, unknown>>): string[] {
  return Object.entries(paths).flatMap(([path, item]) => Object.keys(item).filter((key) => METHODS.has(key)).map((method) => `${method.toUpperCase()} ${path}`));
}

/**
 * The routes a router registers, read from its source text (nothing is imported from the proxy):
 * `get("/v1/...", ...)`-style calls, plus a string constant used as a prefix with a `*name` or
 * `:name` rest (the proxy's `/v1/models/{id}`, matched for GET only).
 */
async function routesIn(file: URL, call: RegExp, prefix: string): Promise<string[]> {
  const source = await readFile(file, "utf8");
  const asTemplate = (path: string) => path.replace(/[*:](\w+)/g, "{$1}");
  const calls = [...source.matchAll(call)].map(([, method, path]) => `${method!.toUpperCase()} ${asTemplate(prefix + path)}`);
  const constants = new Map([...source.matchAll(/const (\w+) = "(\/v1[^"]*)"/g)].map(([, name, path]) => [name!, path!]));
  const rests = [...source.matchAll(/`\$\{(\w+)\}([*:]\w+)`/g)].filter(([, name]) => constants.has(name!)).map(([, name, rest]) => `GET ${asTemplate(constants.get(name!)! + rest)}`);
  return [...calls, ...rests];
}

const proxySource = (file: string) => readFile(new URL(`../../../proxy/src/${file}`, import.meta.url), "utf8");
const VERBS = "GET|POST|PUT|PATCH|DELETE";

/**
 * The routes GET /v1 lists (routes/v1.ts: its `endpoints` and `extensions`), the proxy's own list
 * of what it serves: `"GET|POST /v1/conversations/{id}"` is two, a `?alt=sse` or a note after the
 * path is dropped.
 */
async function discoveryRoutes(): Promise<string[]> {
  const source = await proxySource("routes/v1.ts");
  return [...source.matchAll(new RegExp(`"((?:${VERBS})(?:\\|(?:${VERBS}))*) (/[^"\\s?]*)[^"]*"`, "g"))].flatMap(([, verbs, path]) => verbs!.split("|").map((verb) => `${verb} ${path}`));
}

/**
 * The Gemini routes routes/gemini.ts matches, read from `matchGeminiRoute`'s patterns: each
 * `pattern:` with its constants (`V1BETA_MODELS`), `${version}` for every API version it
 * assigns and `${name}` for every method of its METHODS set; `list`/`get` are GETs, methods POSTs.
 */
async function geminiRoutes(): Promise<string[]> {
  const source = await proxySource("routes/gemini.ts");
  const constants = new Map([...source.matchAll(/const (\w+) = "(\/[^"]*)"/g)].map(([, name, value]) => [name!, [value!]]));
  constants.set("version", [...source.matchAll(/version = "(\/\w+)"/g)].map(([, value]) => value!));
  constants.set("name", [...(/const METHODS[^=]*= new Set\(\[([^\]]*)\]/.exec(source)?.[1] ?? "").matchAll(/"(\w+)"/g)].map(([, value]) => value!));
  const expand = (template: string): string[] => {
    const hole = /\$\{(\w+)\}/.exec(template);
    if (!hole) return [template.replace(/\*(\w+)/g, "{$1}")];
    return (constants.get(hole[1]!) ?? []).flatMap((value) => expand(template.replace(hole[0], value)));
  };
  return [...source.matchAll(/kind: "(list|get|method)", pattern: (?:(\w+)|`([^`]*)`)/g)].flatMap(([, kind, constant, template]) =>
    expand(constant !== undefined ? `\${${constant}}` : template!).map((path) => `${kind === "method" ? "POST" : "GET"} ${path}`),
  );
}

describe("GET /api/openapi.json", () => {
  it("serves an OpenAPI 3.1 document of /v1 and /api without auth, on this gateway's address", async () => {
    const response = await fixture.call("GET", "/api/openapi.json", { token: null });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(document.openapi).toBe("3.1.0");
    expect(document.servers).toEqual([{ url: "/", description: "this gateway" }]);
    expect(operationsOf(document.paths).sort()).toEqual(
      [
        "GET /v1",
        "GET /v1/models",
        "GET /v1/models/{id}",
        "GET /v1/usage",
        "POST /v1/chat/completions",
        "POST /v1/responses",
        "GET /v1/responses",
        "GET /v1/responses/{id}",
        "DELETE /v1/responses/{id}",
        "GET /v1/responses/{id}/input_items",
        "POST /v1/responses/input_tokens",
        "POST /v1/conversations",
        "GET /v1/conversations/{id}",
        "POST /v1/conversations/{id}",
        "DELETE /v1/conversations/{id}",
        "GET /v1/conversations/{id}/items",
        "POST /v1/conversations/{id}/items",
        "GET /v1/conversations/{id}/items/{item_id}",
        "DELETE /v1/conversations/{id}/items/{item_id}",
        "GET /v1beta/models",
        "GET /v1beta/models/{model}",
        ...["generateContent", "streamGenerateContent", "countTokens", "embedContent", "batchEmbedContents"].flatMap((method) => [`POST /v1beta/models/{model}:${method}`, `POST /v1/models/{model}:${method}`]),
        "POST /v1/messages",
        "POST /v1/images/generations",
        "POST /v1/messages/count_tokens",
        "POST /v1/embeddings",
        "POST /v1/redeem",
        "POST /api/keys",
        "GET /api/keys",
        "GET /api/keys/{id}",
        "PATCH /api/keys/{id}",
        "DELETE /api/keys/{id}",
        "POST /api/keys/{id}/rotate",
        "GET /api/keys/{id}/usage",
        "GET /api/usage",
        "GET /api/requests",
        "GET /api/audit-log",
        "GET /api/server-options",
        "GET /api/token",
        "GET /api/upstreams",
        "GET /api/openapi.json",
        "POST /api/customers/{id}/credits",
        "POST /api/customers/{id}/checkout-sessions",
        "GET /api/customers/{id}/auto-top-up",
        "GET /api/customers/{id}/wallet/entries",
        "GET /api/customers/{id}/payments",
        "POST /api/customers/{id}/auto-top-up",
        "POST /api/redemption-codes",
        "GET /api/redemption-codes",
        "POST /api/webhooks",
        "GET /api/webhooks",
        "GET /api/webhooks/{id}",
        "DELETE /api/webhooks/{id}",
        "GET /api/webhooks/{id}/deliveries",
        "GET /api/usage.csv",
        "GET /api/requests.csv",
        "POST /api/customers",
        "GET /api/customers",
        "GET /api/customers/{id}",
        "PATCH /api/customers/{id}",
        "POST /api/customers/{id}/subscriptions",
        "GET /api/customers/{id}/subscriptions",
        "DELETE /api/customers/{id}/subscriptions/{sub_id}",
        "POST /api/plans",
        "GET /api/plans",
        "GET /api/plans/{id}",
      ].sort(),
    );
  });

  it("passes the Redocly linter's recommended rules with no error, offline", async () => {
    const fetchSpy = vi.spyOn(globalThis, "fetch");
    try {
      // No license to state: the gateway is not published under one.
      const config = await createConfig({ extends: ["recommended"], rules: { "info-license": "off" } });
      const problems = await lintFromString({ source: JSON.stringify(document), absoluteRef: "openapi.json", config });
      const show = (problem: (typeof problems)[number]) => `${problem.severity} ${problem.ruleId}: ${problem.message} at ${problem.location[0]?.pointer ?? "?"}`;
      const warnings = problems.filter((problem) => problem.severity !== "error");
      // Known: GET /v1 and the document itself have no 4xx to describe (operation-4xx-response).
      if (warnings.length > 0) console.warn(`OpenAPI lint warnings:\n${warnings.map(show).join("\n")}`);
      expect(problems.filter((problem) => problem.severity === "error").map(show)).toEqual([]);
      expect(fetchSpy).not.toHaveBeenCalled();
    } finally {
      fetchSpy.mockRestore();
    }
  });

  it("describes every /v1 route the proxy registers, and every /api route the control plane mounts", async () => {
    const described = new Set(operationsOf(document.paths));
    // The route table in app.ts, the routes its hand-dispatched prefixes serve as GET /v1 lists them, and the Gemini routes.
    const registered = await routesIn(new URL("../../../proxy/src/app.ts", import.meta.url), /\b(get|post)\(\s*"(\/v1[^"]*)"/g, "");
    expect(registered).toEqual(expect.arrayContaining(["GET /v1", "POST /v1/chat/completions", "GET /v1/models/{id}"]));
    const listed = await discoveryRoutes();
    expect(listed).toEqual(expect.arrayContaining(["POST /v1/chat/completions", "DELETE /v1/responses/{id}", "POST /v1/conversations/{id}/items", "POST /v1beta/models/{model}:streamGenerateContent"]));
    const gemini = await geminiRoutes();
    expect(gemini).toEqual(expect.arrayContaining(["GET /v1beta/models", "GET /v1beta/models/{model}", "POST /v1beta/models/{model}:generateContent", "POST /v1/models/{model}:embedContent"]));
    // What GET /v1 lists of the Gemini API, gemini.ts matches.
    for (const route of listed.filter((each) => each.includes("/v1beta"))) expect(gemini, route).toContain(route);
    // Every prefix app.ts dispatches by hand (`const RESPONSE_BY_ID = "/v1/responses/"`) serves some listed route.
    const app = await proxySource("app.ts");
    for (const [, prefix] of app.matchAll(/const \w+ = "(\/v1[^"]*)"/g)) expect([...registered, ...listed].some((route) => route.split(" ")[1]!.startsWith(prefix!)), prefix).toBe(true);
    const proxy = [...new Set([...registered, ...listed, ...gemini])];
    const vendor = await routesIn(new URL("./vendor-api.ts", import.meta.url), /\brouter\.(get|post|patch|put|delete)\(\s*"([^"]+)"/g, "/api");
    expect(vendor).toEqual(expect.arrayContaining(["POST /api/keys", "PATCH /api/keys/{id}"]));
    for (const route of [...proxy, ...vendor]) expect(described.has(route), `${route} is not in the document`).toBe(true);
    // And nothing under /v1 or /v1beta that the proxy does not serve.
    expect([...described].filter((operation) => operation.includes(" /v1")).sort()).toEqual([...proxy].sort());
  });

  it("asks for the token and scope each /api route checks", async () => {
    const source = await readFile(new URL("./vendor-api.ts", import.meta.url), "utf8");
    const mounted = [...source.matchAll(/\brouter\.(get|post|patch|put|delete)\(\s*"([^"]+)"(.*)$/gm)];
    expect(mounted.length).toBeGreaterThan(10);
    for (const [, method, path, rest] of mounted) {
      const scope = /requireScope\("([^"]+)"\)/.exec(rest!)?.[1];
      const expected = !rest!.includes("authenticated") ? [] : [{ vendorToken: scope ? [scope] : [] }];
      expect(document.paths[`/api${path!.replace(/:(\w+)/g, "{$1}")}`][method!].security, `${method} ${path}`).toEqual(expected);
    }
  });

  it("gives every operation a unique operationId, a summary, a tag and its security", () => {
    type Operation = { path: string; method: string; operationId?: string; summary?: string; tags?: string[] };
    const operations: Operation[] = Object.entries(document.paths as Record<string, Record<string, object>>).flatMap(([path, item]) =>
      Object.entries(item).filter(([method]) => METHODS.has(method)).map(([method, operation]) => ({ path, method, ...operation })),
    );
    const ids = operations.map((operation) => operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const operation of operations) {
      expect(operation.summary, `${operation.method} ${operation.path}`).toEqual(expect.any(String));
      expect(operation.tags).toEqual([operation.path.startsWith("/v1") ? "models" : "vendor"]);
    }
    const { securitySchemes } = document.components;
    expect(securitySchemes.vendorToken).toMatchObject({ type: "http", scheme: "bearer" });
    expect(securitySchemes.vendorToken.description).toContain("keys:update");
    expect(securitySchemes.apiKey).toMatchObject({ type: "http", scheme: "bearer", bearerFormat: "sk-..." });
    expect(securitySchemes.apiKeyHeader).toEqual(expect.objectContaining({ type: "apiKey", in: "header", name: "x-api-key" }));
    expect(document.paths["/api/keys"].post.security).toEqual([{ vendorToken: ["keys:create"] }]);
    expect(document.paths["/api/keys/{id}"].patch.security).toEqual([{ vendorToken: ["keys:update"] }]);
    expect(document.paths["/api/audit-log"].get.security).toEqual([{ vendorToken: [] }]);
    expect(document.paths["/v1/chat/completions"].post.security).toEqual([{ apiKey: [] }, { apiKeyHeader: [] }]);
    expect(document.paths["/v1"].get.security).toEqual([]);
    // The Gemini routes take the key as Google's clients send it, and the gateway's forms.
    expect(securitySchemes.googleApiKey).toEqual(expect.objectContaining({ type: "apiKey", in: "header", name: "x-goog-api-key" }));
    expect(securitySchemes.googleKeyQuery).toEqual(expect.objectContaining({ type: "apiKey", in: "query", name: "key" }));
    for (const path of ["/v1beta/models/{model}:generateContent", "/v1/models/{model}:countTokens"]) {
      expect(document.paths[path].post.security).toEqual([{ googleApiKey: [] }, { googleKeyQuery: [] }, { apiKey: [] }, { apiKeyHeader: [] }]);
    }
    expect(document.paths["/api/openapi.json"].get.security).toEqual([]);
  });

  it("describes bodies, responses and the error envelope from the route schemas, every $ref resolving", () => {
    const schemas = document.components.schemas;
    expect(schemas.CreateKeyRequest.required).toEqual(["server_option"]);
    expect(schemas.UpdateKeyRequest.properties).toHaveProperty("quota_add");
    expect(schemas.UpdateKeyRequest.required).toBeUndefined();
    expect(document.paths["/api/keys/{id}/rotate"].post.requestBody.required).toBe(false);
    expect(schemas.CreatedApiKey.required).toContain("key");
    expect(schemas.ApiKey.properties).not.toHaveProperty("key");
    expect(schemas.Error.properties.error.required).toEqual(["type", "message", "code", "param"]);
    expect(schemas.UsageReport.properties.object.const).toBe("usage_report");
    expect(document.paths["/api/keys"].get.parameters.map((parameter: { name: string }) => parameter.name)).toEqual(["limit", "cursor", "status", "search", "customer_id"]);
    expect(document.paths["/api/requests"].get.parameters.map((parameter: { name: string }) => parameter.name)).toEqual(expect.arrayContaining(["key_id", "model", "status", "from", "to", "limit", "cursor"]));
    expect(document.paths["/api/keys"].post.responses["409"]).toEqual({ $ref: "#/components/responses/Error409" });
    const refs = JSON.stringify(document).match(/"\$ref":"[^"]+"/g) ?? [];
    expect(refs.length).toBeGreaterThan(10);
    for (const ref of refs) {
      const pointer = ref.slice('"$ref":"#/'.length, -1).split("/");
      expect(pointer.reduce((node, part) => node?.[part], document), ref).toBeDefined();
    }
  });

  it("describes the model API: loose bodies, streams, the version header and the shared errors", () => {
    const { schemas, responses } = document.components;
    expect(schemas.ChatCompletionRequest.required).toEqual(["model", "messages"]);
    expect(schemas.MessageRequest.required).toEqual(["model", "max_tokens", "messages"]);
    expect(schemas.MessageRequest.properties.max_tokens.type).toBe("integer");
    for (const name of ["ChatCompletionRequest", "ResponseRequest", "MessageRequest", "ImageGenerationRequest"]) expect(schemas[name].additionalProperties).toEqual({});
    const messages = document.paths["/v1/messages"].post;
    expect(messages.parameters).toContainEqual(expect.objectContaining({ name: "anthropic-version", in: "header", schema: expect.objectContaining({ pattern: "^\\d{4}-\\d{2}-\\d{2}$" }) }));
    expect(Object.keys(messages.responses["200"].content)).toEqual(["application/json", "text/event-stream"]);
    expect(Object.keys(document.paths["/v1/images/generations"].post.responses["200"].content)).toEqual(["application/json"]);
    expect(Object.keys(messages.responses).sort()).toEqual(["200", "400", "401", "403", "404", "413", "415", "429", "500", "502", "503", "504"]);
    expect(responses.Error429.headers).toHaveProperty("retry-after");
    expect(document.paths["/v1/usage"].get.responses["200"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/KeyUsage" });
    expect(schemas.ModelList.properties.data.items).toEqual({ $ref: "#/components/schemas/Model" });
    expect(schemas.Discovery.properties.status.enum).toEqual(["ok", "degraded"]);
  });

  it("describes the stored Responses state and the Conversations API as the proxy answers them", () => {
    const { schemas } = document.components;
    const names = (operation: { parameters: { name: string }[] }) => operation.parameters.map((parameter) => parameter.name);
    // list-page.ts reads limit, order and after.
    expect(names(document.paths["/v1/responses/{id}/input_items"].get)).toEqual(["id", "limit", "order", "after"]);
    expect(names(document.paths["/v1/conversations/{id}/items"].get)).toEqual(["id", "limit", "order", "after"]);
    expect(schemas.ItemList.required).toEqual(["object", "data", "first_id", "last_id", "has_more"]);
    expect(schemas.ResponseDeleted.properties.object.const).toBe("response");
    expect(schemas.ConversationDeleted.properties.object.const).toBe("conversation.deleted");
    expect(schemas.Conversation.properties.object.const).toBe("conversation");
    expect(schemas.ConversationItemsRequest.required).toEqual(["items"]);
    expect(schemas.ConversationItemsRequest.properties.items.maxItems).toBe(20);
    const ok = (path: string, method: string) => document.paths[path][method].responses["200"].content["application/json"].schema;
    expect(ok("/v1/responses/{id}", "delete")).toEqual({ $ref: "#/components/schemas/ResponseDeleted" });
    expect(ok("/v1/conversations/{id}/items/{item_id}", "delete")).toEqual({ $ref: "#/components/schemas/Conversation" });
    expect(ok("/v1/conversations/{id}/items", "post")).toEqual({ $ref: "#/components/schemas/ItemList" });
  });

  it("describes the Gemini API: Google's bodies, the SSE stream and Google's error envelope, described once", () => {
    const { schemas, responses } = document.components;
    expect(schemas.GenerateContentRequest.required).toEqual(["contents"]);
    expect(schemas.GenerateContentRequest.properties).toHaveProperty("generationConfig");
    expect(schemas.GenerateContentResponse.properties).toEqual(expect.objectContaining({ candidates: expect.any(Object), usageMetadata: expect.any(Object) }));
    expect(schemas.GoogleError.properties.error.required).toEqual(["code", "message", "status", "details"]);
    const stream = document.paths["/v1beta/models/{model}:streamGenerateContent"].post;
    expect(Object.keys(stream.responses["200"].content)).toEqual(["text/event-stream"]);
    expect(stream.parameters).toContainEqual(expect.objectContaining({ name: "alt", in: "query" }));
    const generate = document.paths["/v1/models/{model}:generateContent"].post;
    expect(generate.responses["400"]).toEqual({ $ref: "#/components/responses/GoogleError400" });
    expect(responses.GoogleError400.content["application/json"].schema).toEqual({ $ref: "#/components/schemas/GoogleError" });
    expect(responses.GoogleError429.headers).toHaveProperty("retry-after");
    // Only the Gemini routes answer in Google's envelope.
    for (const [path, item] of Object.entries(document.paths as Record<string, Record<string, { responses?: Record<string, { $ref?: string }> }>>)) {
      const refs = Object.values(item).flatMap((operation) => Object.values(operation.responses ?? {}).map((response) => response.$ref ?? ""));
      const gemini = path.startsWith("/v1beta") || path.includes("}:");
      expect(refs.filter((ref) => ref.includes("/GoogleError")).length > 0, path).toBe(gemini);
      if (gemini) expect(refs.filter((ref) => ref.includes("/Error"))).toEqual([]);
    }
  });

  it("unknown /api routes are 404 in the same envelope", async () => {
    expectError(await fixture.call("GET", "/api/nope"), 404, "route_not_found");
    expectError(await fixture.call("PUT", "/api/keys"), 404, "route_not_found");
  });
});

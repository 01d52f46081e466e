import { describe, expect, it } from "vitest";
import fc from "fast-check";
import type { Translation } from "../core/pipeline.ts";
import { isBookkeepingField } from "../core/bookkeeping.ts";
import { DroppedParams } from "../core/drops.ts";
import { translationBetween } from "./index.ts";

const chatToMessages = translationBetween("chat", "messages");
const messagesToChat = translationBetween("messages", "chat");
const responsesToChat = translationBetween("responses", "chat");
const responsesToMessages = translationBetween("responses", "messages");

/**
 * Contract section 15: across shapes, metadata is never a reason to fail. Every direction drops
 * the client's bookkeeping fields and lists them; strict_params refuses them instead; a field the
 * gateway cannot place is still refused.
 */
const DIRECTIONS: { translation: Translation; base: Record<string, unknown> }[] = [
  { translation: chatToMessages, base: { model: "m", messages: [{ role: "user", content: "Hi" }] } },
  { translation: messagesToChat, base: { model: "m", max_tokens: 10, messages: [{ role: "user", content: "Hi" }] } },
  { translation: responsesToMessages, base: { model: "m", input: "Hi" } },
  { translation: responsesToChat, base: { model: "m", input: "Hi" } },
];

const translate = (translation: Translation, body: Record<string, unknown>, dropped: DroppedParams) =>
  translation.request({ body, model: "m", stream: false, outputBound: 100 }, dropped).body;

/** Codex 0.171's client_metadata, as captured. */
const CODEX_CLIENT_METADATA = {
  thread_id: "01a21c31-b447-7370-a630-af36c8fa2391",
  "x-codex-window-id": "01a21c31-b447-7370-a630-af36c8fa2391:0",
  turn_id: "01a21c31-b478-7190-9636-37ac5bff0ed1",
  "x-codex-installation-id": "a63f6ca5-974f-418a-9568-5d9b2df19cfa",
  session_id: "01a21c31-b447-7370-a630-af36c8fa2391",
};

const bookkeepingName = fc.oneof(
  fc.constantFrom("client_metadata", "request_metadata", "session_id", "thread_id", "trace_id", "request_id", "tags"),
  fc.stringMatching(/^x-[a-z][a-z0-9-]{0,15}$/),
  fc.stringMatching(/^x_[a-z][a-z0-9_]{0,15}$/),
  fc.stringMatching(/^[a-z]{1,10}_metadata$/),
);
const setValue = fc.jsonValue().filter((value) => value !== null);

describe.each(DIRECTIONS)("bookkeeping fields, $translation.name", ({ translation, base }) => {
  it("Codex's client_metadata: dropped and listed, never sent; refused under strict_params", () => {
    const dropped = new DroppedParams(false);
    const sent = translate(translation, { ...base, client_metadata: CODEX_CLIENT_METADATA }, dropped);
    expect(sent).not.toHaveProperty("client_metadata");
    expect(JSON.stringify(sent)).not.toContain("01a21c31");
    expect(dropped.paths).toEqual(["client_metadata"]);
    expect(() => translate(translation, { ...base, client_metadata: CODEX_CLIENT_METADATA }, new DroppedParams(true))).toThrow(
      expect.objectContaining({ code: "unsupported_feature", param: "client_metadata" }),
    );
  });

  it("property: any bookkeeping fields with any values are dropped, each listed once, and reach no upstream", () => {
    fc.assert(
      fc.property(fc.dictionary(bookkeepingName, setValue, { minKeys: 1, maxKeys: 4 }), (fields) => {
        const dropped = new DroppedParams(false);
        const sent = translate(translation, { ...base, ...fields }, dropped);
        for (const field of Object.keys(fields)) expect(sent).not.toHaveProperty([field]);
        expect([...dropped.paths].sort()).toEqual(Object.keys(fields).sort());
      }),
    );
  });

  it("a field it cannot place that is not bookkeeping is still refused, naming it", () => {
    expect(() => translate(translation, { ...base, prompt_template_vars: { a: 1 } }, new DroppedParams(false))).toThrow(
      expect.objectContaining({ code: "unsupported_feature", param: "prompt_template_vars" }),
    );
  });
});

describe("one end-user id on Anthropic", () => {
  it.each([
    { translation: chatToMessages, base: DIRECTIONS[0]!.base },
    { translation: responsesToMessages, base: DIRECTIONS[2]!.base },
  ])("$translation.name: user becomes metadata.user_id; a different safety_identifier is dropped, listed; an equal one changes nothing", ({ translation, base }) => {
    const dropped = new DroppedParams(false);
    expect(translate(translation, { ...base, user: "u-1", safety_identifier: "s-1" }, dropped)).toMatchObject({ metadata: { user_id: "u-1" } });
    expect(dropped.paths).toEqual(["safety_identifier"]);
    const same = new DroppedParams(false);
    expect(translate(translation, { ...base, safety_identifier: "s-1" }, same)).toMatchObject({ metadata: { user_id: "s-1" } });
    translate(translation, { ...base, user: "u-1", safety_identifier: "u-1" }, same);
    expect(same.paths).toEqual([]);
  });
});

describe("isBookkeepingField", () => {
  it.each(["client_metadata", "x-codex-turn-metadata", "x_trace", "trace_id", "session_id", "request_metadata"])("%s is bookkeeping", (field) => {
    expect(isBookkeepingField(field)).toBe(true);
  });

  it.each(["metadata", "user", "previous_response_id", "conversation", "prompt", "max_tokens", "tools", "extra_body", "xml_mode"])("%s is not", (field) => {
    expect(isBookkeepingField(field)).toBe(false);
  });
});

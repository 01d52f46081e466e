import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { GatewayError } from "@gateway/contracts";
import type { EndpointName } from "./wire-format.ts";
import { boundedBody, loweredOutputField, outputBound, outputBoundField, outputChoices, outputFields, requestedOutput, type AboveMaximum } from "./output-bound.ts";

const TEXT_ENDPOINTS = ["chat.completions", "messages", "responses"] as const;
const NO_OUTPUT_ENDPOINTS = ["images.generations", "embeddings", "messages.count_tokens"] as const;

/**
 * A field's value as a hostile client may write it in JSON: sane counts, the model's maximum and
 * around it, huge and overflowing literals (`1e400` parses as Infinity), negative, zero,
 * fractional, and not numbers at all. Generated as JSON text and parsed, as the proxy reads it.
 */
const jsonValue = fc.oneof(
  fc.integer({ min: 1, max: 200_000 }).map(String),
  fc.constantFrom("1", "4096", "4097", "16384", "16385", "1e15", "1e300", "1e400", "-1e400", "9007199254740993", "0", "-0", "-1", "1.5", "2000.0001", "null", '"100"', '"NaN"', '"Infinity"', "true", "[]", "{}"),
  fc.integer({ min: -10, max: 2 ** 31 }).map(String),
  fc.double({ noNaN: true }).map((value) => JSON.stringify(value)),
);

/** A body with any combination of the three output fields (absent, or any value above). */
const body = fc
  .record({ max_tokens: fc.option(jsonValue, { nil: undefined }), max_completion_tokens: fc.option(jsonValue, { nil: undefined }), max_output_tokens: fc.option(jsonValue, { nil: undefined }) })
  .map((fields) => {
    const members = Object.entries(fields).filter(([, text]) => text !== undefined).map(([name, text]) => `"${name}":${text}`);
    return JSON.parse(`{"model":"m",${members.join(",")}${members.length > 0 ? "," : ""}"messages":[]}`) as Record<string, unknown>;
  });

const maxOutput = fc.oneof(fc.constantFrom(0, 1, 4096, 16384, 64000), fc.integer({ min: 0, max: 2 ** 31 - 1 }));
const mode = fc.constantFrom<AboveMaximum>("refuse", "lower", "strict");

function run(request: Record<string, unknown>, endpoint: EndpointName, max: number, aboveMaximum: AboveMaximum): number | GatewayError {
  try {
    return outputBound(request, endpoint, max, aboveMaximum);
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
}

const isCount = (value: unknown): value is number => typeof value === "number" && Number.isSafeInteger(value) && value >= 1;
const isSet = (value: unknown) => value !== undefined && value !== null;

describe("outputBound", () => {
  it("is always an integer in [1, the model's maximum], or a 400 naming the field (never a throw of another kind)", () => {
    fc.assert(
      fc.property(body, fc.constantFrom(...TEXT_ENDPOINTS), maxOutput, mode, (request, endpoint, max, aboveMaximum) => {
        const result = run(request, endpoint, max, aboveMaximum);
        if (typeof result === "number") {
          expect(Number.isSafeInteger(result)).toBe(true);
          expect(result).toBeGreaterThanOrEqual(1);
          expect(result).toBeLessThanOrEqual(max);
        } else {
          expect(result.status).toBe(400);
          expect(result.type).toBe("invalid_request_error");
          expect([...outputFields(endpoint), "model"]).toContain(result.param);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it("is exactly what the native API obeys: the first field set, every one range-checked, capped or refused", () => {
    fc.assert(
      fc.property(body, fc.constantFrom(...TEXT_ENDPOINTS), maxOutput, mode, (request, endpoint, max, aboveMaximum) => {
        const fields = outputFields(endpoint);
        const sent = fields.filter((field) => isSet(request[field]));
        const invalid = sent.find((field) => !isCount(request[field]));
        const obeyed = sent[0];
        const result = run(request, endpoint, max, aboveMaximum);
        if (invalid !== undefined) {
          // A malformed count is the client's 400, whichever field it is in.
          expect(result).toMatchObject({ code: "invalid_body", param: invalid });
        } else if (max === 0) {
          expect(result).toMatchObject({ code: "unsupported_feature", param: "model" });
        } else if (obeyed === undefined) {
          expect(result).toBe(max);
        } else {
          const requested = request[obeyed] as number;
          if (requested <= max) expect(result).toBe(requested);
          else if (aboveMaximum === "lower") expect(result).toBe(max);
          // By name in its own shape, the native API's 400; under strict_params, the drop-or-refuse rule's.
          else expect(result).toMatchObject({ code: aboveMaximum === "refuse" ? "invalid_body" : "unsupported_feature", param: obeyed, message: expect.stringContaining(`maximum output of ${max}`) });
        }
      }),
      { numRuns: 2000 },
    );
  });

  it("chat completions: max_completion_tokens wins over max_tokens (the reservation cannot be 1 when 2000 may come)", () => {
    expect(outputBound({ max_tokens: 1, max_completion_tokens: 2000 }, "chat.completions", 16384, "lower")).toBe(2000);
    expect(outputBound({ max_tokens: 2000, max_completion_tokens: 1 }, "chat.completions", 16384, "lower")).toBe(1);
    // Issue 35's overflow: 1e15 is a valid count but not the obeyed field; alone it is capped (or refused by name).
    expect(outputBound({ max_tokens: 1e15, max_completion_tokens: 500 }, "chat.completions", 64000, "lower")).toBe(500);
    expect(outputBound({ max_tokens: 1e15 }, "chat.completions", 64000, "lower")).toBe(64000);
    expect(() => outputBound({ max_tokens: 1e15 }, "chat.completions", 64000, "refuse")).toThrow(expect.objectContaining({ param: "max_tokens" }));
    expect(() => outputBound({ max_tokens: Number.POSITIVE_INFINITY, max_completion_tokens: 500 }, "chat.completions", 64000, "lower")).toThrow(expect.objectContaining({ param: "max_tokens" }));
  });

  it("endpoints without output tokens are bound 0, whatever their body says", () => {
    fc.assert(
      fc.property(body, fc.constantFrom(...NO_OUTPUT_ENDPOINTS), maxOutput, mode, (request, endpoint, max, aboveMaximum) => {
        expect(outputBound(request, endpoint, max, aboveMaximum)).toBe(0);
      }),
    );
  });
});

describe("the field a 400 about the bound names (outputBoundField)", () => {
  it("is the field the bound was read from: the first one set in the native API's order, by its path in the body", () => {
    fc.assert(
      fc.property(body, fc.constantFrom(...TEXT_ENDPOINTS), (request, endpoint) => {
        const obeyed = outputFields(endpoint).find((field) => isSet(request[field]));
        expect(outputBoundField(request, endpoint)).toBe(obeyed ?? null);
      }),
    );
    // Chat Completions obeys max_completion_tokens, whichever comes first in the body.
    expect(outputBoundField({ max_tokens: 1e15, max_completion_tokens: 500 }, "chat.completions")).toBe("max_completion_tokens");
    expect(outputBoundField({ generationConfig: { maxOutputTokens: 10 } }, "gemini.generate_content")).toBe("generationConfig.maxOutputTokens");
    expect(outputBoundField({ max_tokens: 10 }, "embeddings")).toBeNull();
  });

  it("answers n choices on Chat Completions only (outputChoices)", () => {
    fc.assert(
      fc.property(fc.constantFrom(...TEXT_ENDPOINTS), fc.integer({ min: 1, max: 128 }), (endpoint, n) => {
        expect(outputChoices({ model: "m", n }, endpoint)).toBe(endpoint === "chat.completions" ? n : 1);
      }),
    );
    expect(outputChoices({ model: "m" }, "chat.completions")).toBe(1);
  });
});

describe("the value the request asked for (requestedOutput, read by tracing)", () => {
  it("is the field the API obeys, from the same table as the bound", () => {
    expect(requestedOutput({ max_tokens: 9, max_completion_tokens: 5 }, "chat.completions")).toBe(5);
    expect(requestedOutput({ max_tokens: 9 }, "chat.completions")).toBe(9);
    expect(requestedOutput({ max_output_tokens: 7, max_tokens: 3 }, "responses")).toBe(7);
    expect(requestedOutput({ generationConfig: { maxOutputTokens: 11 } }, "gemini.generate_content")).toBe(11);
    expect(requestedOutput({ max_tokens: 9 }, "messages.count_tokens")).toBeUndefined();
    expect(requestedOutput({}, "messages")).toBeUndefined();
  });
});

describe("what the upstream receives (boundedBody) and what is listed (loweredOutputField)", () => {
  it("the upstream body carries exactly the bound in the client's one output field, the rest untouched; no field sent: the body as it came", () => {
    fc.assert(
      fc.property(body, fc.constantFrom(...TEXT_ENDPOINTS), fc.integer({ min: 1, max: 2 ** 31 }), mode, (request, endpoint, max, aboveMaximum) => {
        const bound = run(request, endpoint, max, aboveMaximum);
        fc.pre(typeof bound === "number");
        const fields = outputFields(endpoint);
        const before = JSON.stringify(request);
        const prepared = boundedBody(request, endpoint, bound);
        expect(JSON.stringify(request)).toBe(before);
        const sent = prepared ?? request;
        const obeyed = fields.find((field) => isSet(request[field]));
        if (obeyed === undefined) {
          // Same shape, the upstream's own default is the model's maximum, which is the bound.
          expect(bound).toBe(max);
          expect(prepared).toBeNull();
          return;
        }
        const carried = fields.filter((field) => isSet(sent[field]));
        // One field, the one the client's API obeys, saying exactly the bound.
        expect(carried).toEqual([obeyed]);
        expect(sent[obeyed]).toBe(bound);
        for (const key of Object.keys(request)) if (!fields.includes(key)) expect(sent[key]).toBe(request[key]);
        if (prepared === null) expect(fields.filter((field) => isSet(request[field]))).toEqual([carried[0]]);
      }),
      { numRuns: 1000 },
    );
  });

  it("the lowered field is listed exactly when the bound is below what the client asked for", () => {
    fc.assert(
      fc.property(body, fc.constantFrom(...TEXT_ENDPOINTS), fc.integer({ min: 1, max: 2 ** 31 }), (request, endpoint, max) => {
        const bound = run(request, endpoint, max, "lower");
        fc.pre(typeof bound === "number");
        const obeyed = outputFields(endpoint).find((field) => isSet(request[field]));
        const lowered = obeyed !== undefined && (request[obeyed] as number) > max;
        expect(loweredOutputField(request, endpoint, bound)).toBe(lowered ? obeyed : null);
      }),
      { numRuns: 1000 },
    );
  });
});

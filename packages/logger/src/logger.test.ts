import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger } from "./index.ts";

describe("logger redaction", () => {
  it("never writes credentials, wherever they sit", () => {
    const lines: string[] = [];
    const destination = new Writable({ write(chunk, _encoding, done) { lines.push(String(chunk)); done(); } });
    const logger = createLogger({ name: "test", destination });
    const key = "sk-THISISASECRETKEY000000000000000";
    logger.info({ headers: { authorization: `Bearer ${key}`, "x-api-key": key }, req: { headers: { authorization: key } }, token: "vt_secret", apiKey: key, requestId: "req_1" }, "hello");
    const output = lines.join("");
    expect(output).not.toContain("SECRETKEY");
    expect(output).not.toContain("vt_secret");
    expect(output).toContain("req_1");
    expect(output).toContain("[redacted]");
  });
});

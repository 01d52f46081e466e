import { describe, expect, it } from "vitest";
import { RawEvents } from "./raw-events.ts";

const text = (bytes: Buffer | null) => (bytes === null ? null : bytes.toString("utf8"));

describe("RawEvents", () => {
  it("gives the bytes of the whole events of each chunk; a cut event waits for the rest", () => {
    const raw = new RawEvents(true);
    raw.begin(Buffer.from('data: {"a":1}\n\ndata: {"b"'));
    expect(text(raw.asIs())).toBe('data: {"a":1}\n\n');
    raw.begin(Buffer.from(":2}\n\n: ping\n\nid: 7\ndata: x"));
    expect(text(raw.asIs())).toBe('data: {"b":2}\n\n: ping\n\n');
    raw.begin(Buffer.from("\n"));
    expect(raw.asIs()).toBeNull();
    raw.begin(Buffer.from("\n"));
    expect(text(raw.asIs())).toBe("id: 7\ndata: x\n\n");
  });

  it("a boundary split across chunks is still found", () => {
    const raw = new RawEvents(true);
    raw.begin(Buffer.from("event: ping\ndata: {}\n"));
    expect(raw.asIs()).toBeNull();
    raw.begin(Buffer.from("\nevent: x"));
    expect(text(raw.asIs())).toBe("event: ping\ndata: {}\n\n");
  });

  it("nothing as is when an event of the chunk was changed, when disabled, or once CR line endings show up", () => {
    const changed = new RawEvents(true);
    changed.begin(Buffer.from("data: 1\n\ndata: 2\n\n"));
    changed.changed();
    expect(changed.asIs()).toBeNull();
    changed.begin(Buffer.from("data: 3\n\n"));
    expect(text(changed.asIs())).toBe("data: 3\n\n");

    const translated = new RawEvents(false);
    translated.begin(Buffer.from("data: 1\n\n"));
    expect(translated.asIs()).toBeNull();

    const crlf = new RawEvents(true);
    crlf.begin(Buffer.from("data: 1\r\n\r\n"));
    expect(crlf.asIs()).toBeNull();
    crlf.begin(Buffer.from("data: 2\n\n"));
    expect(crlf.asIs()).toBeNull();
  });

  it("multi-byte characters split across chunks come out whole", () => {
    const raw = new RawEvents(true);
    const bytes = Buffer.from("data: héllo\n\n");
    raw.begin(bytes.subarray(0, 8));
    expect(raw.asIs()).toBeNull();
    raw.begin(bytes.subarray(8));
    expect(text(raw.asIs())).toBe("data: héllo\n\n");
  });
});
